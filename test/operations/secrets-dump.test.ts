import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createApp } from '../../src/app';
import { apiClient, createTestAccount, startTestApp, type TestApp } from '../support/harness';
import { CARDS, addPaymentMethod, cardBody, createCustomer } from '../support/payments';
import { startStripeMock, stripeToolMissing, type StripeStandIn } from '../support/stripe-tools';

// After API keys, webhook secrets (created and rolled), cards with a CVC and a failed
// card went through the API, neither a dump of every table nor the captured logs hold any of them; nor
// of a Stripe secret key and webhook secret connected (and a key Stripe refused), when stripe-mock is installed.

let app: TestApp;
let stripeMock: StripeStandIn | undefined;
const apiBaseBefore = process.env.STRIPE_API_BASE;
beforeAll(async () => {
  if (!stripeToolMissing('stripe-mock')) {
    stripeMock = await startStripeMock();
    process.env.STRIPE_API_BASE = stripeMock.apiBase;
  }
  app = await startTestApp();
});
afterAll(async () => {
  process.env.STRIPE_API_BASE = apiBaseBefore;
  await app.close();
  await stripeMock?.stop();
});

/**
 * Every row of every table in the schema as PostgreSQL's text form (`(col1,col2,...)`): the data a
 * `pg_dump --data-only` writes. (The machine's pg_dump is 15, older than the embedded server 18.)
 */
async function databaseDump(): Promise<string> {
  const tables = await app.prisma.$queryRaw<{ name: string }[]>`
    SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`;
  expect(tables.map((table) => table.name)).toEqual(
    expect.arrayContaining(['api_keys', 'webhook_destinations', 'payment_methods']),
  );
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await app.prisma.$queryRawUnsafe<{ row: string }[]>(
      `SELECT t::text AS row FROM "${name.replace(/"/g, '""')}" t`,
    );
    parts.push(`-- ${name}`, ...rows.map((row) => row.row));
  }
  return parts.join('\n');
}

/**
 * Every text value of every row (columns and the strings inside JSON columns), one per line: where a CVC
 * could be kept. Numbers are left out, as a CVC is not stored as one: the shared test database's ids,
 * counts and amounts hold every 4-digit number sooner or later.
 */
async function databaseTexts(): Promise<string> {
  const tables = await app.prisma.$queryRaw<{ name: string }[]>`
    SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`;
  const texts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  for (const { name } of tables) {
    const rows = await app.prisma.$queryRawUnsafe<{ row: unknown }[]>(
      `SELECT to_jsonb(t) AS row FROM "${name.replace(/"/g, '""')}" t`,
    );
    rows.forEach((row) => collect(row.row));
  }
  return texts.join('\n');
}

it('a fresh database dump and the logs hold no API key, webhook secret, card number or CVC', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const server = http.createServer(
    createApp({ prisma: app.prisma, temporal: app.temporal, logger: pino({ level: 'trace' }, sink) }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const account = await createTestAccount(app.prisma, { name: 'Dump' });
    const api = apiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, account.apiKey);
    const cvc = '7391';
    const customer = await createCustomer(api);
    await addPaymentMethod(
      api,
      customer.id,
      cardBody(CARDS.succeeds, { card: { number: CARDS.succeeds, exp_month: 12, exp_year: 2099, cvc } }),
    );
    await addPaymentMethod(
      api,
      customer.id,
      cardBody(CARDS.declined, { card: { number: CARDS.declined, exp_month: 12, exp_year: 2099, cvc } }),
    );
    // A refused card (bad CVC) and a wrong key are logged too.
    expect(
      (
        await api.post('/payment-methods', {
          ...cardBody(CARDS.processingError),
          customer: customer.id,
          card: { number: CARDS.processingError, exp_month: 12, exp_year: 2099, cvc: '73a' },
        })
      ).status,
    ).toBe(400);
    const wrongKey = 'sk_test_wrongKeyThatShouldNeverBeLogged0000000';
    expect(
      (await apiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, wrongKey).get('/customers'))
        .status,
    ).toBe(401);
    // Sent with Idempotency-Key: their answers, secrets included, are kept for replay (encrypted).
    const destination = (
      await api.post(
        '/webhook/destination',
        { url: 'https://hooks.example.com/billing' },
        { 'Idempotency-Key': 'dump-create' },
      )
    ).body as { id: string; secret: string };
    const rolled = (
      await api.post(`/webhook/destination/${destination.id}/roll-secret`, undefined, {
        'Idempotency-Key': 'dump-roll',
      })
    ).body as { secret: string };

    const stripeSecrets: Record<string, string> = {};
    if (stripeMock) {
      const connection = {
        processor: 'stripe',
        secret_key: 'sk_test_DumpStripeKeyNeverStored0000',
        webhook_secret: 'whsec_DumpStripeSigningSecret0000',
      };
      const saved = await api.put('/settings/gateway', connection, { 'Idempotency-Key': 'dump-gateway' });
      expect(saved.status).toBe(200);
      // stripe-mock refuses a live key as Stripe refuses one it does not know.
      const refusedKey = 'sk_live_DumpRefusedKeyNeverStored00';
      expect((await api.put('/settings/gateway', { ...connection, secret_key: refusedKey })).status).toBe(400);
      Object.assign(stripeSecrets, {
        'Stripe secret key': connection.secret_key,
        'Stripe webhook secret': connection.webhook_secret,
        'refused Stripe key': refusedKey,
        'refused Stripe key in base64': Buffer.from(`${refusedKey}:`).toString('base64'),
      });
    } else {
      console.warn(
        `test/operations/secrets-dump.test.ts: no Stripe connection checked: ${stripeToolMissing('stripe-mock')}`,
      );
    }

    const dump = await databaseDump();
    const logs = lines.join('');
    expect(logs).toMatch(/"msg":"request"/);
    expect(dump).toContain(destination.id); // the dump does hold this test's rows
    expect(dump).toContain('dump-roll'); // and the idempotency records of the secret-answering calls
    const secrets = {
      'API key': account.apiKey,
      'wrong API key': wrongKey,
      'webhook secret': destination.secret,
      'rolled webhook secret': rolled.secret,
      'card number': CARDS.succeeds,
      'declined card number': CARDS.declined,
      'refused card number': CARDS.processingError,
      ...stripeSecrets,
    };
    for (const [what, value] of Object.entries(secrets)) {
      expect({ what, inDump: dump.includes(value), inLogs: logs.includes(value) }).toEqual({
        what,
        inDump: false,
        inLogs: false,
      });
    }
    // The CVC as a value of its own (not a run of digits inside an id or a timestamp).
    const cvcValue = new RegExp(`(?<![\\w.:-])${cvc}(?![\\w.:-])`);
    expect({ inDump: cvcValue.test(await databaseTexts()), inLogs: cvcValue.test(logs) }).toEqual({
      inDump: false,
      inLogs: false,
    });
    expect(dump).not.toMatch(/"cvc"/);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
