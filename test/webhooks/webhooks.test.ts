import { startRelay, type Relay } from '../../src/webhooks/relay';
import { verifySignature } from '../../src/webhooks/signing';
import { webhookStateQuery } from '../../workflows/webhook-delivery';
import {
  apiClient,
  createTestAccount,
  expectStatus,
  startTestApp,
  startTestWorker,
  type ApiClient,
  type TestApp,
} from '../support/harness';
import { startWebhookReceiver, type Responder, type WebhookReceiver } from '../support/webhook-receiver';
import { allowPrivateWebhookTargets, deliveryHandle, startedDelivery, waitUntil } from '../support/webhooks';

// Webhook management over HTTP, and delivery end to end on the suite's Temporal dev server in real
// time: API change -> event -> relay (LISTEN/NOTIFY) -> deliverWebhook -> a real receiver on loopback.
const TASK_QUEUE = 'webhooks-api-test';

let app: TestApp;
let testWorker: Awaited<ReturnType<typeof startTestWorker>>;
let relay: Relay;
const relayedAccounts: string[] = [];
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  allowPrivateWebhookTargets();
  app = await startTestApp();
  testWorker = await startTestWorker(app.prisma, TASK_QUEUE);
  relay = startRelay({
    prisma: app.prisma,
    databaseUrl: process.env.DATABASE_URL!,
    temporal: app.temporal,
    taskQueue: TASK_QUEUE,
    accountIds: () => relayedAccounts,
  });
});

afterAll(async () => {
  await relay.stop();
  await testWorker.stop();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await app.close();
});

async function receiver(reply?: Responder): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver({ reply });
  receivers.push(started);
  return started;
}

/** A developer account whose events the relay of this file delivers. */
async function webhookAccount(options: { role?: 'developer' | 'superadmin' | 'standard'; relayed?: boolean } = {}) {
  const account = await createTestAccount(app.prisma, { role: options.role ?? 'developer', name: 'Webhooks' });
  if (options.relayed !== false) relayedAccounts.push(account.accountId);
  return { ...account, api: apiClient(app.baseUrl, account.apiKey) };
}

async function createDestination(api: ApiClient, url: string) {
  const response = await api.post('/webhook/destination', { url });
  expect(response.status).toBe(201);
  return response.body as { id: string; url: string; secret: string; active: boolean };
}

async function createCustomer(api: ApiClient, name = 'Webhook Customer') {
  const response = await api.post('/customers', { name });
  expect(response.status).toBe(201);
  return response.body as { id: string };
}

async function eventFor(accountId: string, customerId: string, type = 'customer.created') {
  return app.prisma.event.findFirstOrThrow({ where: { accountId, type, data: { path: ['id'], equals: customerId } } });
}

async function logsOf(api: ApiClient, query = '') {
  const response = await api.get(`/webhook/logs${query}`);
  expect(response.status).toBe(200);
  return response.body as { data: any[]; meta: { page: number; take: number; itemsTotal: number; pagesTotal: number } };
}

describe('webhook destinations', () => {
  it('POST creates an active destination and answers its signing secret once', async () => {
    const { api } = await webhookAccount({ relayed: false });
    const response = await api.post('/webhook/destination', { url: 'https://hooks.example.com/billing' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^we_[a-zA-Z0-9]+$/),
      object: 'webhook_destination',
      url: 'https://hooks.example.com/billing',
      active: true,
      status: 'enabled',
      created: expect.any(Number),
      updated: expect.any(Number),
      secret: expect.stringMatching(/^whsec_[a-zA-Z0-9]{40}$/),
    });
    const list = await api.get('/webhook/destination');
    expect(list.status).toBe(200);
    const { secret: _secret, ...withoutSecret } = response.body;
    expect(list.body).toEqual([withoutSecret]);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
  });

  it('PUT changes the URL; PATCH disable and enable toggle it; DELETE removes it from every endpoint', async () => {
    const { api } = await webhookAccount({ relayed: false });
    const destination = await createDestination(api, 'https://a.example.com/hook');
    const updated = await api.put(`/webhook/destination/${destination.id}`, { url: 'https://b.example.com/hook' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: destination.id, url: 'https://b.example.com/hook', active: true });
    expect(updated.body.secret).toBeUndefined();

    const disabled = await api.patch(`/webhook/destination/${destination.id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ active: false, status: 'disabled' });
    expect((await api.patch(`/webhook/destination/${destination.id}/disable`)).body.active).toBe(false);
    const enabled = await api.patch(`/webhook/destination/${destination.id}/enable`);
    expect(enabled.body).toMatchObject({ active: true, status: 'enabled' });

    const deleted = await api.delete(`/webhook/destination/${destination.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: destination.id, object: 'webhook_destination', deleted: true });
    expect((await api.get('/webhook/destination')).body).toEqual([]);
    expect((await api.put(`/webhook/destination/${destination.id}`, { url: 'https://c.example.com' })).status).toBe(
      404,
    );
    expect((await api.patch(`/webhook/destination/${destination.id}/enable`)).status).toBe(404);
    expect((await api.patch(`/webhook/destination/${destination.id}/disable`)).status).toBe(404);
    expect((await api.delete(`/webhook/destination/${destination.id}`)).status).toBe(404);
  });

  it('lists every destination of the account, oldest first', async () => {
    const { api } = await webhookAccount({ relayed: false });
    const first = await createDestination(api, 'https://one.example.com');
    const second = await createDestination(api, 'https://two.example.com');
    expect((await api.get('/webhook/destination')).body.map((d: { id: string }) => d.id)).toEqual([
      first.id,
      second.id,
    ]);
  });

  it.each([
    ['no url', {}, 'parameter_missing'],
    ['a number', { url: 42 }, 'parameter_invalid'],
    ['an empty url', { url: '' }, 'parameter_invalid'],
    ['a relative path', { url: '/relative/path' }, 'parameter_invalid'],
    ['no scheme', { url: 'example.com/hook' }, 'parameter_invalid'],
    ['ftp', { url: 'ftp://example.com/hook' }, 'parameter_invalid'],
    ['javascript:', { url: 'javascript:alert(1)' }, 'parameter_invalid'],
    ['file:', { url: 'file:///etc/passwd' }, 'parameter_invalid'],
    ['a url over 2048 characters', { url: `https://example.com/${'x'.repeat(2048)}` }, 'parameter_invalid'],
  ])('rejects %s with 400 naming url', async (_label, body, code) => {
    const { api, accountId } = await webhookAccount({ relayed: false });
    const response = await api.post('/webhook/destination', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param: 'url', code });
    expect(await app.prisma.webhookDestination.count({ where: { accountId } })).toBe(0);
  });

  it('rejects unknown body fields and malformed ids', async () => {
    const { api } = await webhookAccount({ relayed: false });
    const unknown = await api.post('/webhook/destination', { url: 'https://example.com', events: ['*'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ param: 'events', code: 'parameter_unknown' });
    const malformed = await api.patch('/webhook/destination/not-an-id!/enable');
    expect(malformed.status).toBe(404);
    expect(malformed.body.error.param).toBe('id');
    const destination = await createDestination(api, 'https://example.com/ok');
    const badPut = await api.put(`/webhook/destination/${destination.id}`, { url: 'ftp://example.com' });
    expect(badPut.status).toBe(400);
    expect(badPut.body.error.param).toBe('url');
    expect((await api.get('/webhook/destination')).body[0].url).toBe('https://example.com/ok');
  });

  describe('private and loopback hosts, WEBHOOK_ALLOW_PRIVATE unset', () => {
    beforeEach(() => {
      delete process.env.WEBHOOK_ALLOW_PRIVATE;
    });
    afterEach(() => allowPrivateWebhookTargets());

    it.each([
      'http://localhost/hook',
      'http://LOCALHOST:8080/hook',
      'http://api.localhost/hook',
      'http://127.0.0.1/hook',
      'http://127.1.2.3:3000/hook',
      'http://2130706433/hook',
      'http://0x7f.0.0.1/hook',
      'http://0.0.0.0/hook',
      'http://10.1.2.3/hook',
      'http://172.16.0.1/hook',
      'http://192.168.1.10/hook',
      'http://100.64.0.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://[::]/hook',
      'http://[fe80::1]/hook',
      'http://[fd00::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[::ffff:10.0.0.1]/hook',
    ])('refuses %s', async (url) => {
      const { api } = await webhookAccount({ relayed: false });
      const response = await api.post('/webhook/destination', { url });
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe('url');
      // What is wrong, and how to allow it in development.
      expect(response.body.error.message).toMatch(
        /^Invalid body parameter 'url': must not point to \S+, a (loopback host|private, loopback or link-local address): webhooks are sent to public addresses only; to allow private and loopback ones in development, start the service with WEBHOOK_ALLOW_PRIVATE=true \(docs\/configuration\.md\)$/,
      );
    });

    it.each(['https://hooks.example.com/x', 'http://93.184.216.34/hook', 'https://[2606:4700::1111]/hook'])(
      'accepts %s',
      async (url) => {
        const { api } = await webhookAccount({ relayed: false });
        expect((await api.post('/webhook/destination', { url })).status).toBe(201);
      },
    );

    it('refuses a private URL on PUT too', async () => {
      const { api } = await webhookAccount({ relayed: false });
      const destination = await createDestination(api, 'https://hooks.example.com/x');
      expect((await api.put(`/webhook/destination/${destination.id}`, { url: 'http://127.0.0.1:9/' })).status).toBe(
        400,
      );
    });
  });

  it('is for developer and superadmin keys only: 403 for a standard key on every endpoint, 401 without a key', async () => {
    const owner = await webhookAccount({ relayed: false });
    const destination = await createDestination(owner.api, 'https://example.com/hook');
    const { api: superadmin } = await webhookAccount({ role: 'superadmin', relayed: false });
    expect((await superadmin.post('/webhook/destination', { url: 'https://example.com' })).status).toBe(201);
    expect((await superadmin.get('/webhook/logs')).status).toBe(200);

    const { api: standard } = await webhookAccount({ role: 'standard', relayed: false });
    const calls = [
      () => standard.post('/webhook/destination', { url: 'https://example.com' }),
      () => standard.get('/webhook/destination'),
      () => standard.put(`/webhook/destination/${destination.id}`, { url: 'https://example.com' }),
      () => standard.patch(`/webhook/destination/${destination.id}/enable`),
      () => standard.patch(`/webhook/destination/${destination.id}/disable`),
      () => standard.delete(`/webhook/destination/${destination.id}`),
      () => standard.get('/webhook/logs'),
    ];
    for (const call of calls) {
      const response = await call();
      expect(response.status).toBe(403);
      expect(response.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_role' });
    }
    expect((await apiClient(app.baseUrl).get('/webhook/destination')).status).toBe(401);
  });

  it("answers 404 for another account's destination on every endpoint and changes nothing", async () => {
    const owner = await webhookAccount({ relayed: false });
    const { api: other } = await webhookAccount({ relayed: false });
    const destination = await createDestination(owner.api, 'https://owner.example.com/hook');
    const id = destination.id;
    for (const response of [
      await other.put(`/webhook/destination/${id}`, { url: 'https://evil.example.com' }),
      await other.patch(`/webhook/destination/${id}/enable`),
      await other.patch(`/webhook/destination/${id}/disable`),
      await other.delete(`/webhook/destination/${id}`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ type: 'not_found', code: 'resource_missing' });
    }
    expect((await other.get('/webhook/destination')).body).toEqual([]);
    expect((await other.get(`/webhook/logs?destination=${id}`)).body.data).toEqual([]);
    expect((await owner.api.get('/webhook/destination')).body).toEqual([
      expect.objectContaining({ id, url: 'https://owner.example.com/hook', active: true }),
    ]);
  });
});

describe('delivery (real time, Temporal dev server)', () => {
  it('delivers the envelope, signed, with the event id header; the log shows success', async () => {
    const target = await receiver(200);
    const { api, accountId } = await webhookAccount();
    const destination = await createDestination(api, target.url);
    const customer = await createCustomer(api);
    const [request] = await target.waitFor(1);
    const event = await eventFor(accountId, customer.id);

    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['cc-event-id']).toBe(event.id);
    expect(Object.keys(request!.json)).toEqual(['id', 'event', 'createdAt', 'data']);
    expect(request!.json).toEqual({
      id: event.id,
      event: 'customer.created',
      createdAt: event.createdAt.toISOString(),
      data: (await api.get(`/customers/${customer.id}`)).body,
    });
    expect(request!.json.data.object).toBe('customer');
    const signature = request!.headers['cc-signature'] as string;
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(signature, destination.secret, request!.body)).toBe(true);
    expect(verifySignature(signature, 'whsec_someoneElse', request!.body)).toBe(false);
    expect(
      verifySignature(signature, destination.secret, request!.body.replace('customer.created', 'customer.deleted')),
    ).toBe(false);

    const state = await (await startedDelivery(app.temporal, event.id, destination.id)).result();
    expect(state.status).toBe('success');
    const { data } = await logsOf(api);
    expect(data).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^whd_/),
        object: 'webhook_delivery',
        event_id: event.id,
        event_type: 'customer.created',
        destination: destination.id,
        destination_url: target.url,
        workflow_id: `webhook:${event.id}:${destination.id}`,
        payload: request!.json,
        status: 'success',
        attempt_count: 1,
        status_code: 200,
        error: null,
        next_attempt_at: null,
        attempts: [
          expect.objectContaining({ attempt: 1, url: target.url, outcome: 'success', status_code: 200, error: null }),
        ],
      }),
    ]);
    expect(target.received).toHaveLength(1);
  });

  it('wakes on NOTIFY: the first attempt follows the event within a second (median), without waiting for a poll', async () => {
    const target = await receiver(200);
    const { api, accountId } = await webhookAccount({ relayed: false });
    await createDestination(api, target.url);
    const listeningRelay = startRelay({
      prisma: app.prisma,
      databaseUrl: process.env.DATABASE_URL!,
      temporal: app.temporal,
      taskQueue: TASK_QUEUE,
      accountIds: () => [accountId],
      pollIntervalMs: 10 * 60_000,
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // LISTEN registered
      const latencies: number[] = [];
      for (let i = 0; i < 5; i++) {
        const customer = await createCustomer(api, `Latency ${i}`);
        const event = await eventFor(accountId, customer.id);
        const [request] = await target.waitFor(i + 1, { timeoutMs: 5000 });
        latencies.push(target.received[i]!.at - event.createdAt.getTime());
        expect(request).toBeDefined();
      }
      // The poll is 10 minutes away: every delivery here was woken by NOTIFY.
      expect(Math.max(...latencies)).toBeLessThan(5000);
      expect([...latencies].sort((x, y) => x - y)[2]).toBeLessThan(1000);
    } finally {
      await listeningRelay.stop();
    }
  });

  it('sends every event to every active destination of the account, and to no other account', async () => {
    const [a1, a2, b1] = [await receiver(200), await receiver(200), await receiver(200)];
    const accountA = await webhookAccount();
    const accountB = await webhookAccount();
    await createDestination(accountA.api, a1.url);
    await createDestination(accountA.api, a2.url);
    await createDestination(accountB.api, b1.url);
    const customerA = await createCustomer(accountA.api, 'A');
    await accountA.api.patch(`/customers/${customerA.id}`, { name: 'A2' });
    const customerB = await createCustomer(accountB.api, 'B');

    const eventsA = await app.prisma.event.findMany({
      where: { accountId: accountA.accountId },
      orderBy: { seq: 'asc' },
    });
    const eventB = await eventFor(accountB.accountId, customerB.id);
    expect(eventsA.map((event) => event.type)).toEqual(['customer.created', 'customer.updated']);
    for (const target of [a1, a2]) {
      const received = await target.waitFor(2);
      expect(received.map((request) => request.json.id).sort()).toEqual(eventsA.map((event) => event.id).sort());
    }
    expect((await b1.waitFor(1)).map((request) => request.json.id)).toEqual([eventB.id]);
    await waitUntil(async () => (await logsOf(accountA.api, '?status=success')).meta.itemsTotal === 4);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(b1.received.map((request) => request.json.id)).toEqual([eventB.id]);
    expect(a1.received).toHaveLength(2);
    expect((await logsOf(accountB.api)).data.map((entry) => entry.event_id)).toEqual([eventB.id]);
  });

  it('a disabled destination gets no new deliveries; enabled again it gets the events that follow', async () => {
    const target = await receiver(200);
    const { api, accountId } = await webhookAccount();
    const destination = await createDestination(api, target.url);
    expect((await api.patch(`/webhook/destination/${destination.id}/disable`)).status).toBe(200);
    const skipped = await createCustomer(api, 'While disabled');
    const skippedEvent = await eventFor(accountId, skipped.id);
    await waitUntil(
      async () => (await app.prisma.event.findUniqueOrThrow({ where: { id: skippedEvent.id } })).dispatchedAt,
    );
    expect(await app.prisma.webhookDelivery.count({ where: { eventId: skippedEvent.id } })).toBe(0);

    expect((await api.patch(`/webhook/destination/${destination.id}/enable`)).status).toBe(200);
    const delivered = await createCustomer(api, 'After enable');
    const [request] = await target.waitFor(1);
    expect(request!.json.id).toBe((await eventFor(accountId, delivered.id)).id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(target.received).toHaveLength(1);
  });

  it('a deleted destination gets no new deliveries and its log stays readable', async () => {
    const target = await receiver(200);
    const { api, accountId } = await webhookAccount();
    const destination = await createDestination(api, target.url);
    await createCustomer(api, 'Before delete');
    await target.waitFor(1);
    await waitUntil(async () => (await logsOf(api, '?status=success')).meta.itemsTotal === 1);
    expect((await api.delete(`/webhook/destination/${destination.id}`)).status).toBe(200);
    const after = await createCustomer(api, 'After delete');
    const afterEvent = await eventFor(accountId, after.id);
    await waitUntil(
      async () => (await app.prisma.event.findUniqueOrThrow({ where: { id: afterEvent.id } })).dispatchedAt,
    );
    expect(await app.prisma.webhookDelivery.count({ where: { eventId: afterEvent.id } })).toBe(0);
    expect(target.received).toHaveLength(1);
    // Still named by its URL, and still a filter of the logs; for another account its id finds nothing.
    expect((await logsOf(api, `?destination=${destination.id}`)).data).toEqual([
      expect.objectContaining({ destination: destination.id, destination_url: target.url }),
    ]);
    const { api: other } = await webhookAccount({ relayed: false });
    expect(expectStatus(await other.get(`/webhook/logs?destination=${destination.id}`), 200)).toMatchObject({
      data: [],
      meta: { itemsTotal: 0 },
    });
  });

  it('404 fails at once with the code logged, and the state query shows it', async () => {
    const target = await receiver(404);
    const { api, accountId } = await webhookAccount();
    const destination = await createDestination(api, target.url);
    const customer = await createCustomer(api);
    const event = await eventFor(accountId, customer.id);
    const handle = deliveryHandle(app.temporal, event.id, destination.id);
    await waitUntil(() =>
      handle.describe().then(
        () => true,
        () => false,
      ),
    );
    const state = await handle.result();
    expect(state).toMatchObject({
      status: 'failure',
      attempts: [expect.objectContaining({ statusCode: 404, outcome: 'permanent' })],
    });
    // The query is the state plus its times in ISO-8601 (for the Web UI).
    expect(await handle.query(webhookStateQuery)).toEqual({
      ...state,
      times: { 'attempts.0.scheduledAt': new Date(state.attempts[0]!.scheduledAt).toISOString() },
    });
    const [entry] = (await logsOf(api, '?status=failure')).data;
    expect(entry).toMatchObject({ status: 'failure', status_code: 404, attempt_count: 1 });
    expect(target.received).toHaveLength(1);
  });
});

describe('worker restart (real time, Temporal dev server)', () => {
  it('a worker stopped during a retry wait loses nothing: a new worker makes the retry on schedule (500, then 200)', async () => {
    const queue = 'webhooks-restart-test';
    const target = await receiver((_request, index) => (index === 0 ? 500 : 200));
    const { api, accountId } = await webhookAccount({ relayed: false });
    const destination = await createDestination(api, target.url);
    let worker = await startTestWorker(app.prisma, queue);
    const ownRelay = startRelay({
      prisma: app.prisma,
      databaseUrl: process.env.DATABASE_URL!,
      temporal: app.temporal,
      taskQueue: queue,
      accountIds: () => [accountId],
    });
    try {
      const customer = await createCustomer(api);
      const event = await eventFor(accountId, customer.id);
      await target.waitFor(1);
      await waitUntil(async () => (await logsOf(api)).data[0]?.status === 'retry');
      // The relay made attempt 1 and started the workflow with its result: it waits for the retry.
      const handle = await startedDelivery(app.temporal, event.id, destination.id);
      const before = await waitUntil(() => handle.query(webhookStateQuery).catch(() => undefined));
      expect(before).toMatchObject({ status: 'retry', attempts: [expect.objectContaining({ statusCode: 500 })] });

      await worker.stop();
      expect((await handle.describe()).status.name).toBe('RUNNING');
      expect((await logsOf(api)).data[0]).toMatchObject({ status: 'retry', attempt_count: 1, status_code: 500 });
      worker = await startTestWorker(app.prisma, queue);

      const state = await handle.result();
      expect(state.status).toBe('success');
      // Replayed on the new worker, the workflow drew the same delays: the retry came when first planned.
      expect(state.retryDelaysMs).toEqual(before.retryDelaysMs);
      expect(target.received).toHaveLength(2);
      const gap = target.received[1]!.at - target.received[0]!.at;
      expect(gap).toBeGreaterThanOrEqual(before.retryDelaysMs[0]! - 100);
      // Slack for a loaded machine and the server's sticky-queue handover to the new worker.
      expect(gap).toBeLessThan(before.retryDelaysMs[0]! + 6000);
      const [entry] = (await logsOf(api)).data;
      expect(entry).toMatchObject({ status: 'success', attempt_count: 2, status_code: 200 });
      expect(
        entry.attempts.map((attempt: { status_code: number; outcome: string }) => [
          attempt.status_code,
          attempt.outcome,
        ]),
      ).toEqual([
        [500, 'retryable'],
        [200, 'success'],
      ]);
    } finally {
      await ownRelay.stop();
      await worker.stop();
    }
  }, 60_000);
});

describe('GET /webhook/logs', () => {
  it('pages newest first and filters by status, event type, destination and event', async () => {
    const ok = await receiver(200);
    const gone = await receiver(410);
    const { api, accountId } = await webhookAccount();
    const okDestination = await createDestination(api, ok.url);
    const goneDestination = await createDestination(api, gone.url);
    const customer = await createCustomer(api, 'Logged');
    await api.patch(`/customers/${customer.id}`, { name: 'Logged again' });
    await api.delete(`/customers/${customer.id}`);
    await waitUntil(async () => {
      const { data } = await logsOf(api, '?take=100');
      return data.length === 6 && data.every((entry) => entry.status === 'success' || entry.status === 'failure');
    });

    const all = await logsOf(api, '?take=100');
    expect(all.meta).toEqual({ page: 1, take: 100, itemsTotal: 6, pagesTotal: 1 });
    const created = all.data.map((entry) => entry.created);
    expect([...created].sort((x, y) => y - x)).toEqual(created);

    const pageTwo = await logsOf(api, '?take=4&page=2');
    expect(pageTwo.meta).toEqual({ page: 2, take: 4, itemsTotal: 6, pagesTotal: 2 });
    expect(pageTwo.data.map((entry) => entry.id)).toEqual(all.data.slice(4).map((entry) => entry.id));

    const failures = await logsOf(api, '?status=failure');
    expect(failures.data).toHaveLength(3);
    expect(failures.data.every((entry) => entry.destination === goneDestination.id && entry.status_code === 410)).toBe(
      true,
    );
    expect((await logsOf(api, '?status=success')).data.every((entry) => entry.destination === okDestination.id)).toBe(
      true,
    );
    expect((await logsOf(api, '?event_type=customer.updated')).data.map((entry) => entry.event_type)).toEqual([
      'customer.updated',
      'customer.updated',
    ]);
    expect((await logsOf(api, `?destination=${okDestination.id}&event_type=customer.deleted`)).data).toHaveLength(1);
    const deletedEvent = await eventFor(accountId, customer.id, 'customer.deleted');
    expect((await logsOf(api, `?event=${deletedEvent.id}`)).data.map((entry) => entry.destination).sort()).toEqual(
      [okDestination.id, goneDestination.id].sort(),
    );
  });

  it.each([
    ['status=delivered', 'status'],
    ['event_type=Customer Created', 'event_type'],
    ['destination=bad id', 'destination'],
    ['take=101', 'take'],
    ['page=0', 'page'],
    ['colour=red', 'colour'],
  ])('rejects ?%s with 400 naming %s', async (query, param) => {
    const { api } = await webhookAccount({ relayed: false });
    const response = await api.get(`/webhook/logs?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });
});
