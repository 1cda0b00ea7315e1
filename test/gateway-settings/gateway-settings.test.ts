import '../../src/gateway-registrations';
import { createApiKey, GATEWAY_ACCOUNT_CACHE_MS } from '../../src/accounts/account.service';
import { readProcessorCredentials } from '../../src/gateway-settings';
import { logger } from '../../src/http/logger';
import { hearGatewayChanges } from '../../src/use-cases/gateway-changes';
import { waitUntil } from '../support/webhooks';
import { createGateways } from '../../src/payments/gateways';
import { SimulatedGateway } from '../../src/simulated-gateway/simulated-gateway';
import { StripeGateway } from '../../src/stripe-gateway/stripe-gateway';
import { freePort } from '../support/ports';
import {
  apiClient,
  auditEntriesOf,
  createTestAccount,
  expectStatus,
  startTestApp,
  type TestApp,
} from '../support/harness';
import { startStripeMock, stripeToolMissing, type StripeStandIn } from '../support/stripe-tools';

/**
 * GET and PUT /settings/gateway (docs/api.md, "Payment processors") against stripe-mock, which checks
 * the key's request against Stripe's OpenAPI and refuses any key but a test one (as Stripe refuses a key
 * it does not know): developers and superadmins only, secrets stored encrypted and never answered,
 * one account never sees another's, a Stripe that does not answer is a 502 that saves nothing.
 */
const missing = stripeToolMissing('stripe-mock');
if (missing) console.warn(`test/gateway-settings/gateway-settings.test.ts skipped: ${missing}`);
const describeWithStripeMock = missing ? describe.skip : describe;

const TEST_KEY = 'sk_test_51AbCdEfGhIjKlMnOpQrStUvWxYz0123';
const WEBHOOK_SECRET = 'whsec_0123456789abcdefWXYZ';

describeWithStripeMock('/settings/gateway', () => {
  let app: TestApp;
  let stripeMock: StripeStandIn;
  const apiBaseBefore = process.env.STRIPE_API_BASE;

  beforeAll(async () => {
    stripeMock = await startStripeMock();
    process.env.STRIPE_API_BASE = stripeMock.apiBase;
    app = await startTestApp();
  });
  afterAll(async () => {
    process.env.STRIPE_API_BASE = apiBaseBefore;
    await app?.close();
    await stripeMock?.stop();
  });

  async function newAccount(name: string) {
    const { accountId, apiKey } = await createTestAccount(app.prisma, { name, role: 'developer' });
    const keyOf = async (role: 'standard' | 'superadmin') =>
      apiClient(app.baseUrl, (await createApiKey(app.prisma, accountId, role)).api_key);
    return {
      accountId,
      developer: apiClient(app.baseUrl, apiKey),
      superadmin: await keyOf('superadmin'),
      standard: await keyOf('standard'),
    };
  }

  const connect = { processor: 'stripe', secret_key: TEST_KEY, webhook_secret: WEBHOOK_SECRET };

  it('answers simulated until connected, then the processor, livemode and last 4 characters only', async () => {
    const account = await newAccount('Connects');
    expect(expectStatus(await account.developer.get('/settings/gateway'), 200)).toEqual({
      object: 'gateway_settings',
      processor: 'simulated',
      livemode: false,
      secret_key_last4: null,
      webhook_secret_last4: null,
      publishable_key: null,
      webhook_url: null,
      updated: null,
    });
    const saved = expectStatus(await account.developer.put('/settings/gateway', connect), 200);
    expect(saved).toEqual({
      object: 'gateway_settings',
      processor: 'stripe',
      livemode: false,
      secret_key_last4: '0123',
      webhook_secret_last4: 'WXYZ',
      publishable_key: null,
      webhook_url: expect.stringMatching(/\/processor-webhooks\/stripe\/gwk_[A-Za-z0-9]{40}$/),
      updated: expect.any(Number),
    });
    const read = expectStatus(await account.superadmin.get('/settings/gateway'), 200);
    expect(read).toEqual(saved);
    for (const answer of [JSON.stringify(saved), JSON.stringify(read)]) {
      expect(answer).not.toContain(TEST_KEY);
      expect(answer).not.toContain(WEBHOOK_SECRET);
    }

    // A new key keeps the webhook URL the processor was given.
    const changed = expectStatus(
      await account.superadmin.put('/settings/gateway', { ...connect, secret_key: 'sk_test_Another9876' }),
      200,
    );
    expect(changed).toMatchObject({ secret_key_last4: '9876', webhook_url: saved.webhook_url });

    const audited = await auditEntriesOf(account.superadmin, '/settings/gateway', 2);
    expect(audited.map((entry) => [entry.method, entry.status])).toEqual([
      ['PUT', 200],
      ['PUT', 200],
    ]);
    expect(JSON.stringify(audited)).not.toContain(TEST_KEY.slice(0, 12));
    expect(JSON.stringify(audited)).not.toContain('Another');
  });

  it("serves the account's next charge through the processor just connected, in the process that connected it", async () => {
    const account = await newAccount('Switches');
    // The registry keeps the account's processor for 30 s in this process (the app's and the test's).
    const gateways = createGateways(app.prisma);
    expect(await gateways.gatewayFor(account.accountId)).toBeInstanceOf(SimulatedGateway);
    expectStatus(await account.developer.put('/settings/gateway', connect), 200);
    expect(await gateways.gatewayFor(account.accountId)).toBeInstanceOf(StripeGateway);
  });

  it('and in every other process, told by PostgreSQL at commit; after a lost announcement too', async () => {
    const changes = await hearGatewayChanges(process.env.DATABASE_URL!, logger);
    try {
      const gateways = createGateways(app.prisma);
      const soon = <T>(probe: () => Promise<T | false>) => waitUntil(probe, GATEWAY_ACCOUNT_CACHE_MS / 3, 50);
      // Changed by another process (its statements here, which forget nothing in this one): the account's
      // processor, then its connection.
      const switched = await newAccount('Switched elsewhere');
      expectStatus(await switched.developer.put('/settings/gateway', connect), 200);
      expect(await gateways.gatewayFor(switched.accountId)).toBeInstanceOf(StripeGateway);
      expect(await readProcessorCredentials(app.prisma, switched.accountId)).not.toBeNull();
      await app.prisma.$executeRaw`UPDATE accounts SET payment_processor = NULL WHERE id = ${switched.accountId}`;
      await soon(async () => (await gateways.gatewayFor(switched.accountId)) instanceof SimulatedGateway);
      await app.prisma.$executeRaw`DELETE FROM gateway_settings WHERE account_id = ${switched.accountId}`;
      await soon(async () => (await readProcessorCredentials(app.prisma, switched.accountId)) === null);

      // Disconnected while nobody listened (the listeners' connections cut in the same transaction): a listener
      // that connects again forgets every account's.
      const missed = await newAccount('Missed');
      expectStatus(await missed.developer.put('/settings/gateway', connect), 200);
      expect(await readProcessorCredentials(app.prisma, missed.accountId)).not.toBeNull();
      await app.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`DELETE FROM gateway_settings WHERE account_id = ${missed.accountId}`;
        await tx.$queryRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN account_gateway_changes'`;
      });
      await soon(async () => (await readProcessorCredentials(app.prisma, missed.accountId)) === null);
    } finally {
      await changes.close();
    }
  });

  it('answers the publishable key in full: public by design, what the hosted pages give Stripe.js', async () => {
    const account = await newAccount('Publishes');
    const saved = expectStatus(
      await account.developer.put('/settings/gateway', { ...connect, publishable_key: 'pk_test_Publishable42' }),
      200,
    );
    expect(saved.publishable_key).toBe('pk_test_Publishable42');
    expect(expectStatus(await account.developer.get('/settings/gateway'), 200).publishable_key).toBe(
      'pk_test_Publishable42',
    );
  });

  it('stores both secrets encrypted: the raw row holds neither, only their last 4 characters', async () => {
    const account = await newAccount('Encrypted');
    expectStatus(await account.developer.put('/settings/gateway', connect), 200);
    const rows = await app.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
      'SELECT * FROM gateway_settings WHERE account_id = $1',
      account.accountId,
    );
    expect(rows).toHaveLength(1);
    const raw = JSON.stringify(rows[0]);
    expect(raw).not.toContain(TEST_KEY);
    expect(raw).not.toContain(TEST_KEY.slice(8, 30));
    expect(raw).not.toContain(WEBHOOK_SECRET);
    expect(rows[0]).toMatchObject({ secret_key_last4: '0123', webhook_secret_last4: 'WXYZ', processor: 'stripe' });
    expect(Buffer.from(rows[0]!.secret_key_ciphertext as string, 'base64').length).toBeGreaterThan(28);
  });

  it('refuses the standard role, reading and writing', async () => {
    const account = await newAccount('Roles');
    expect((await account.standard.get('/settings/gateway')).status).toBe(403);
    const refused = await account.standard.put('/settings/gateway', connect);
    expect(refused.status).toBe(403);
    expect(expectStatus(await account.developer.get('/settings/gateway'), 200).processor).toBe('simulated');
  });

  it("never shows or changes another account's settings", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const savedA = expectStatus(await a.developer.put('/settings/gateway', connect), 200);
    expect(expectStatus(await b.developer.get('/settings/gateway'), 200)).toMatchObject({
      processor: 'simulated',
      webhook_url: null,
    });
    const savedB = expectStatus(
      await b.developer.put('/settings/gateway', { ...connect, secret_key: 'sk_test_BeeKey4444' }),
      200,
    );
    expect(savedB.webhook_url).not.toBe(savedA.webhook_url);
    expect(expectStatus(await a.developer.get('/settings/gateway'), 200)).toEqual(savedA);
  });

  it('refuses bad input with a 400 naming the field, and a key Stripe refuses naming secret_key', async () => {
    const account = await newAccount('Refusals');
    const cases: [object, string][] = [
      [{ ...connect, processor: 'adyen' }, 'processor'],
      [{ ...connect, secret_key: 'pk_test_123' }, 'secret_key'],
      [{ ...connect, secret_key: 4242 }, 'secret_key'],
      [{ ...connect, webhook_secret: 'secret' }, 'webhook_secret'],
      [{ processor: 'stripe', secret_key: TEST_KEY }, 'webhook_secret'],
      [{ ...connect, extra: 1 }, 'extra'],
      [{ ...connect, publishable_key: 'sk_test_123' }, 'publishable_key'],
      // Test and live never mix: a live publishable key beside a test secret key.
      [{ ...connect, publishable_key: 'pk_live_Mixed1234' }, 'publishable_key'],
    ];
    for (const [body, param] of cases) {
      const refused = await account.developer.put('/settings/gateway', body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.param).toBe(param);
    }
    // stripe-mock, like Stripe for an unknown key, answers 401 to a live key.
    const badKey = await account.developer.put('/settings/gateway', { ...connect, secret_key: 'sk_live_Unknown1234' });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error).toMatchObject({ code: 'secret_key_refused', param: 'secret_key' });
    expect(expectStatus(await account.developer.get('/settings/gateway'), 200).processor).toBe('simulated');
  });

  it('answers 502 gateway_unavailable and saves nothing when Stripe does not answer', async () => {
    const account = await newAccount('Outage');
    process.env.STRIPE_API_BASE = `http://127.0.0.1:${await freePort()}`;
    try {
      const failed = await account.developer.put('/settings/gateway', connect);
      expect(failed.status).toBe(502);
      expect(failed.body.error).toMatchObject({ type: 'api_error', code: 'gateway_unavailable' });
    } finally {
      process.env.STRIPE_API_BASE = stripeMock.apiBase;
    }
    expect(expectStatus(await account.developer.get('/settings/gateway'), 200).processor).toBe('simulated');
    expectStatus(await account.developer.put('/settings/gateway', connect), 200);
  });
});
