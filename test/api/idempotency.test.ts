import { sealStoredAnswers } from '../../src/http/idempotency';
import {
  apiClient,
  createTestAccount,
  type ApiClient,
  type TestApp,
  startTestApp,
  startTestWorker,
  startTwoAccountApp,
} from '../support/harness';
import { CARDS, customerWithCard, gatewayCharges, simpleInvoice } from '../support/payments';
import { recurringPrice } from '../support/subscriptions';

let app: TestApp;
let api: ApiClient;
let accountId: string;
let other: ApiClient;

beforeAll(async () => {
  ({ app, api, accountId, other } = await startTwoAccountApp());
});

afterAll(() => app.close());

let keyCounter = 0;
const newKey = () => `key-${Date.now()}-${++keyCounter}`;
const key = (value: string) => ({ 'Idempotency-Key': value });

describe('Idempotency-Key on POST', () => {
  it('replays the first response (status, body) for the same key and body, creating once', async () => {
    const k = newKey();
    const first = await api.post('/customers', { name: 'Once', email: 'once@example.com' }, key(k));
    const second = await api.post('/customers', { email: 'once@example.com', name: 'Once' }, key(k));
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await app.prisma.customer.count({ where: { accountId, name: 'Once' } })).toBe(1);
  });

  it('answers 400 naming Idempotency-Key when the key comes back with another body or path', async () => {
    const k = newKey();
    expect((await api.post('/customers', { name: 'First' }, key(k))).status).toBe(201);
    const otherBody = await api.post('/customers', { name: 'Second' }, key(k));
    expect(otherBody.status).toBe(400);
    expect(otherBody.body.error).toMatchObject({
      type: 'invalid_request_error',
      param: 'Idempotency-Key',
      code: 'idempotency_key_reused',
    });
    const otherPath = await api.post('/taxRates', { display_name: 'x', percentage: 1, inclusive: false }, key(k));
    expect(otherPath.status).toBe(400);
    expect(otherPath.body.error.param).toBe('Idempotency-Key');
    expect(await app.prisma.customer.count({ where: { accountId, name: 'Second' } })).toBe(0);
  });

  it('keeps keys per account', async () => {
    const k = newKey();
    const mine = await api.post('/customers', { name: 'Mine' }, key(k));
    const theirs = await other.post('/customers', { name: 'Theirs' }, key(k));
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect((await other.get(`/customers/${mine.body.id}`)).status).toBe(404);
  });

  it('replays an error the handler answered, but not a validation error (nothing ran)', async () => {
    const k = newKey();
    const missing = await api.post(
      '/invoices',
      { customer: 'cus_missing', lines: [{ description: 'x', amount: 1 }] },
      key(k),
    );
    expect(missing.status).toBe(404);
    const replay = await api.post(
      '/invoices',
      { customer: 'cus_missing', lines: [{ description: 'x', amount: 1 }] },
      key(k),
    );
    expect(replay.status).toBe(404);
    expect(replay.body).toEqual(missing.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const k2 = newKey();
    expect((await api.post('/customers', { name: '' }, key(k2))).status).toBe(400);
    expect((await api.post('/customers', { name: 'Fixed' }, key(k2))).status).toBe(201);
  });

  it.each([['x'.repeat(256)], ['has space'], ['naïve']])('refuses the malformed key %j with 400', async (bad) => {
    const response = await api.request('POST', '/customers', { name: 'Bad key' }, { 'Idempotency-Key': bad });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('Idempotency-Key');
  });

  it('forgets a key after 24 hours', async () => {
    const k = newKey();
    const first = await api.post('/customers', { name: 'Day one' }, key(k));
    await app.prisma.idempotencyKey.update({
      where: { accountId_key: { accountId, key: k } },
      data: { createdAt: new Date(Date.now() - 25 * 3600 * 1000) },
    });
    const later = await api.post('/customers', { name: 'Day two' }, key(k));
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 409 to a duplicate that arrives while the first is still running', async () => {
    const k = newKey();
    // The first request's row, still in progress (its request hash is only known to the server).
    const first = await api.post('/customers', { name: 'Slow' }, key(k));
    await app.prisma.idempotencyKey.update({
      where: { accountId_key: { accountId, key: k } },
      data: { state: 'in_progress', lockedAt: new Date() },
    });
    const duplicate = await api.post('/customers', { name: 'Slow' }, key(k));
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error).toMatchObject({ type: 'conflict', code: 'idempotency_key_in_use' });
    // A key left in progress by a request that died is taken over after a minute.
    await app.prisma.idempotencyKey.update({
      where: { accountId_key: { accountId, key: k } },
      data: { lockedAt: new Date(Date.now() - 120_000) },
    });
    const takeover = await api.post('/customers', { name: 'Slow' }, key(k));
    expect(takeover.status).toBe(201);
    expect(first.status).toBe(201);
  });

  it('documents the header on every POST and PUT in /openapi.json', async () => {
    const document = (await apiClient(app.baseUrl).get('/openapi.json')).body;
    for (const [path, method] of [
      ['/customers', 'post'],
      ['/invoices/{id}', 'put'],
      ['/payment-methods', 'post'],
      ['/invoices/{id}/refund', 'post'],
    ] as const) {
      const names = (document.paths[path][method].parameters ?? [])
        .filter((p: { in: string }) => p.in === 'header')
        .map((p: { name: string }) => p.name);
      expect([path, names]).toEqual([path, ['Idempotency-Key']]);
    }
    expect(
      (document.paths['/invoices'].get.parameters ?? []).some((p: { name: string }) => p.name === 'Idempotency-Key'),
    ).toBe(false);
  });
});

describe('stored answers are encrypted at rest', () => {
  /** The record of `k` as PostgreSQL's text form: what a dump of the table holds. */
  const storedText = async (k: string) =>
    (
      await app.prisma.$queryRaw<
        { row: string }[]
      >`SELECT t::text AS row FROM idempotency_keys t WHERE account_id = ${accountId} AND key = ${k}`
    )[0]!.row;

  it('keeps no signing secret in clear in the table, and the replay answers the same secret', async () => {
    const created = await api.post('/webhook/destination', { url: 'https://hooks.example.com/idem' }, key(newKey()));
    const k = newKey();
    const rolled = await api.post(`/webhook/destination/${created.body.id}/roll-secret`, undefined, key(k));
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(/^whsec_/);
    const stored = await storedText(k);
    expect(stored).toContain('sealed_v1');
    expect(stored).not.toContain(rolled.body.secret);
    const replay = await api.post(`/webhook/destination/${created.body.id}/roll-secret`, undefined, key(k));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect([replay.status, replay.body]).toEqual([200, rolled.body]);
    // Every record of the account: neither secret (create and roll) is in clear anywhere.
    const all = (
      await app.prisma.$queryRaw<
        { row: string }[]
      >`SELECT t::text AS row FROM idempotency_keys t WHERE account_id = ${accountId}`
    )
      .map((row) => row.row)
      .join('\n');
    expect(all).not.toContain(created.body.secret);
    expect(all).not.toContain(rolled.body.secret);
  });

  it('a record moved to another key does not decrypt; one stored in clear before sealing replays, and the worker sweep seals it', async () => {
    const k = newKey();
    const first = await api.post('/customers', { name: 'Sealed' }, key(k));
    const row = await app.prisma.idempotencyKey.findUniqueOrThrow({ where: { accountId_key: { accountId, key: k } } });
    // Copied under another key (same request hash), the sealed body is refused rather than answered.
    const moved = newKey();
    await app.prisma.idempotencyKey.create({ data: { ...row, key: moved, responseBody: row.responseBody! } });
    expect((await api.post('/customers', { name: 'Sealed' }, key(moved))).status).toBe(500);
    await app.prisma.idempotencyKey.delete({ where: { accountId_key: { accountId, key: moved } } });
    // A record written in clear by an older version still replays, and sealStoredAnswers encrypts it.
    await app.prisma.idempotencyKey.update({
      where: { accountId_key: { accountId, key: k } },
      data: { responseBody: first.body },
    });
    expect(await storedText(k)).toContain(first.body.id);
    expect((await api.post('/customers', { name: 'Sealed' }, key(k))).body).toEqual(first.body);
    expect(await sealStoredAnswers(app.prisma)).toBeGreaterThanOrEqual(1);
    expect(await storedText(k)).not.toContain(first.body.id);
    expect(await sealStoredAnswers(app.prisma)).toBe(0);
    const replay = await api.post('/customers', { name: 'Sealed' }, key(k));
    expect([replay.status, replay.body, replay.headers.get('idempotent-replayed')]).toEqual([201, first.body, 'true']);
  });
});

describe('Idempotency-Key on PUT /invoices/{id}', () => {
  it('a repeated pay with the same key charges once and answers the same invoice', async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await simpleInvoice(api, customer.id, 4321);
    const before = await gatewayCharges(app.prisma, accountId);
    const k = newKey();
    const first = await api.put(`/invoices/${invoice.id}`, {}, key(k));
    const second = await api.put(`/invoices/${invoice.id}`, {}, key(k));
    const third = await api.put(`/invoices/${invoice.id}`, {}, key(k));
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('paid');
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(third.body).toEqual(first.body);
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
    // Without the key the state machine answers: the invoice is paid.
    expect((await api.put(`/invoices/${invoice.id}`)).status).toBe(409);
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
  });

  it('a repeated declined pay with the same key is one attempt; a new key is a new attempt', async () => {
    const { customer } = await customerWithCard(api, CARDS.declined);
    const invoice = await simpleInvoice(api, customer.id, 1000);
    const before = await gatewayCharges(app.prisma, accountId);
    const k = newKey();
    const first = await api.put(`/invoices/${invoice.id}`, {}, key(k));
    const again = await api.put(`/invoices/${invoice.id}`, {}, key(k));
    expect(first.body).toMatchObject({ status: 'open', attempt_count: 1 });
    expect(again.body).toEqual(first.body);
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
    const next = await api.put(`/invoices/${invoice.id}`, {}, key(newKey()));
    expect(next.body.attempt_count).toBe(2);
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 2);
  });

  it('concurrent duplicates with one key charge once (the others replay or get 409)', async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await simpleInvoice(api, customer.id, 1111);
    const before = await gatewayCharges(app.prisma, accountId);
    const k = newKey();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => api.put(`/invoices/${invoice.id}`, {}, key(k))),
    );
    for (const response of responses) {
      expect([200, 409]).toContain(response.status);
      if (response.status === 200) expect(response.body.status).toBe('paid');
      else expect(response.body.error.code).toBe('idempotency_key_in_use');
    }
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
    const replay = await api.put(`/invoices/${invoice.id}`, {}, key(k));
    expect(replay.body.status).toBe('paid');
  });

  it('a pay whose stored answer was lost (request died after charging) is finished without a second charge', async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await simpleInvoice(api, customer.id, 2000);
    const before = await gatewayCharges(app.prisma, accountId);
    const k = newKey();
    expect((await api.put(`/invoices/${invoice.id}`, {}, key(k))).body.status).toBe('paid');
    // As if the process died after the charge, before storing the response.
    await app.prisma.idempotencyKey.update({
      where: { accountId_key: { accountId, key: k } },
      data: { state: 'in_progress', responseStatus: null, lockedAt: new Date(Date.now() - 120_000) },
    });
    const retried = await api.put(`/invoices/${invoice.id}`, {}, key(k));
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ status: 'paid', attempt_count: 1 });
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
  });

  it('a repeated refund with the same key refunds once', async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await simpleInvoice(api, customer.id, 3000);
    await api.put(`/invoices/${invoice.id}`);
    const k = newKey();
    const first = await api.post(`/invoices/${invoice.id}/refund`, { amount: 1000 }, key(k));
    const second = await api.post(`/invoices/${invoice.id}/refund`, { amount: 1000 }, key(k));
    expect(first.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect((await api.get(`/invoices/${invoice.id}`)).body.amount_refunded).toBe(1000);
    expect(await gatewayCharges(app.prisma, accountId, 'refund')).toBeGreaterThanOrEqual(1);
    expect((await api.get(`/transactions?invoice=${invoice.id}&type=refund`)).body.meta.itemsTotal).toBe(1);
  });
});

describe('Idempotency-Key on POST /subscriptions', () => {
  it('a subscription creation whose stored answer was lost (request died after charging) answers that subscription, charged once', async () => {
    const { customer } = await customerWithCard(api);
    const price = await recurringPrice(api, { unitAmount: 1500 });
    const body = {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: Math.floor(Date.now() / 1000),
    };
    const before = await gatewayCharges(app.prisma, accountId);
    const k = newKey();
    const first = await api.post('/subscriptions', body, key(k));
    expect(first.status).toBe(201);
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
    // As if the process died after the creation's commit and charge, before storing the response.
    await app.prisma.idempotencyKey.update({
      where: { accountId_key: { accountId, key: k } },
      data: {
        state: 'in_progress',
        responseStatus: null,
        responseBody: undefined,
        lockedAt: new Date(Date.now() - 120_000),
      },
    });
    const retried = await api.post('/subscriptions', body, key(k));
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({
      id: first.body.id,
      status: 'active',
      latest_invoice: first.body.latest_invoice,
    });
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await app.prisma.subscription.count({ where: { accountId, customerId: customer.id } })).toBe(1);
    expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);

    // The same key once its 24 hours are over is a new request: a new subscription.
    await app.prisma.idempotencyKey.update({
      where: { accountId_key: { accountId, key: k } },
      data: { createdAt: new Date(Date.now() - 25 * 3_600_000) },
    });
    const later = await api.post('/subscriptions', body, key(k));
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
    expect(await app.prisma.subscription.count({ where: { accountId, customerId: customer.id } })).toBe(2);
  });

  it('one key in two accounts makes two subscriptions, each unseen by the other account', async () => {
    const k = newKey();
    const subscribe = async (client: ApiClient) => {
      const { customer } = await customerWithCard(client);
      const price = await recurringPrice(client, { unitAmount: 700 });
      const response = await client.post(
        '/subscriptions',
        {
          customer: customer.id,
          items: [{ price, quantity: 1 }],
          trial_days: 0,
          start_date: Math.floor(Date.now() / 1000),
        },
        key(k),
      );
      expect(response.status).toBe(201);
      return response.body.id as string;
    };
    const mine = await subscribe(api);
    const theirs = await subscribe(other);
    expect(theirs).not.toBe(mine);
    expect((await other.get(`/subscriptions/${mine}`)).status).toBe(404);
    expect((await api.get(`/subscriptions/${theirs}`)).status).toBe(404);
  });
});

describe('Idempotency-Key on subscription pause and resume', () => {
  const taskQueue = 'idempotency-subscription-changes';
  let changes: { app: TestApp; api: ApiClient; accountId: string; stop(): Promise<void> };
  beforeAll(async () => {
    const changesApp = await startTestApp({ taskQueue });
    const worker = await startTestWorker(changesApp.prisma, taskQueue);
    const account = await createTestAccount(changesApp.prisma);
    changes = {
      app: changesApp,
      api: apiClient(changesApp.baseUrl, account.apiKey),
      accountId: account.accountId,
      stop: () => worker.stop(),
    };
  });
  afterAll(async () => {
    await changes.stop();
    await changes.app.close();
  });

  /** As if the process died after the change took effect, before storing the response. */
  const dieAfterCommit = (k: string) =>
    changes.app.prisma.idempotencyKey.update({
      where: { accountId_key: { accountId: changes.accountId, key: k } },
      data: { state: 'in_progress', responseStatus: null, lockedAt: new Date(Date.now() - 120_000) },
    });

  it('a keyed resume (or pause) whose request died after it took effect answers the changed subscription on its retry; a new request still answers 409', async () => {
    const { api } = changes;
    const { customer } = await customerWithCard(api);
    const price = await recurringPrice(api, { unitAmount: 900 });
    const created = await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: Math.floor(Date.now() / 1000),
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await api.post(`/subscriptions/${id}/pause`)).body.status).toBe('paused');

    const resumeKey = newKey();
    const resumed = await api.post(`/subscriptions/${id}/resume`, {}, key(resumeKey));
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('active');
    await dieAfterCommit(resumeKey);
    const retried = await api.post(`/subscriptions/${id}/resume`, {}, key(resumeKey));
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(resumed.body);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    // Stored now: a second retry replays it.
    expect((await api.post(`/subscriptions/${id}/resume`, {}, key(resumeKey))).headers.get('idempotent-replayed')).toBe(
      'true',
    );
    // A resume that is not the same request is refused as before.
    const fresh = await api.post(`/subscriptions/${id}/resume`, {}, key(newKey()));
    expect(fresh.status).toBe(409);
    expect(fresh.body.error.code).toBe('subscription_not_paused');

    const pauseKey = newKey();
    expect((await api.post(`/subscriptions/${id}/pause`, {}, key(pauseKey))).body.status).toBe('paused');
    await dieAfterCommit(pauseKey);
    const pausedAgain = await api.post(`/subscriptions/${id}/pause`, {}, key(pauseKey));
    expect(pausedAgain.status).toBe(200);
    expect(pausedAgain.body).toMatchObject({ id, status: 'paused' });
    expect((await api.post(`/subscriptions/${id}/pause`)).status).toBe(409);
    expect((await api.get(`/subscriptions/${id}`)).body.status).toBe('paused');
  });
});
