import { createTestUser, signIn } from '../support/dashboard';
import {
  apiClient,
  createTestAccount,
  expectStatus,
  startTestApp,
  type ApiClient,
  type TestApp,
} from '../support/harness';

/**
 * The audit log through HTTP on the real database: every successful write made with an API key or a
 * dashboard session is listed with who made it, the operation, the object and the request id; reads,
 * refusals and Idempotency-Key replays are not writes; another account's entries are never shown.
 */
let app: TestApp;
let api: ApiClient;
let accountId: string;

beforeAll(async () => {
  app = await startTestApp();
  const account = await createTestAccount(app.prisma, { name: 'Audited' });
  accountId = account.accountId;
  api = apiClient(app.baseUrl, account.apiKey);
});
afterAll(() => app?.close());

/** Entries are written once the answer is sent: polls until `count` entries of `object` are there. */
async function entriesOf(client: ApiClient, object: string, count: number): Promise<any[]> {
  for (let tries = 0; tries < 100; tries++) {
    const listed = expectStatus(await client.get(`/audit-log?object=${object}&take=100`), 200).data as any[];
    if (listed.length >= count) return listed;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`fewer than ${count} audit entries of ${object}`);
}

it('records each write made with an API key: operation, object, status and request id, newest first', async () => {
  const created = await api.post('/customers', { name: 'Ada', email: 'ada@example.com' });
  const customer = expectStatus(created, 201);
  const updated = await api.patch(`/customers/${customer.id}`, { name: 'Ada Lovelace' });
  expectStatus(updated, 200);
  // A read and a refusal are no writes.
  expectStatus(await api.get(`/customers/${customer.id}`), 200);
  expect((await api.patch(`/customers/${customer.id}`, { name: '' })).status).toBe(400);

  const entries = await entriesOf(api, customer.id, 2);
  const key = await app.prisma.apiKey.findFirstOrThrow({ where: { accountId } });
  expect(entries).toEqual([
    expect.objectContaining({
      object: 'audit_entry',
      actor: { type: 'api_key', id: key.id, name: `API key ${key.keyPrefix}…`, email: null },
      method: 'PATCH',
      route: '/customers/{externalKey}',
      path: `/customers/${customer.id}`,
      status: 200,
      object_id: customer.id,
      request_id: updated.headers.get('x-request-id'),
    }),
    expect.objectContaining({
      method: 'POST',
      route: '/customers',
      status: 201,
      object_id: customer.id,
      request_id: created.headers.get('x-request-id'),
    }),
  ]);
  expect(entries[0].id).toMatch(/^aud_\d+$/);
  expect(entries[0].created).toEqual(expect.any(Number));
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await entriesOf(api, customer.id, 2)).toHaveLength(2);
});

it('an Idempotency-Key replay is not a second write', async () => {
  const headers = { 'Idempotency-Key': `audit-${crypto.randomUUID()}` };
  const first = expectStatus(await api.post('/customers', { name: 'Grace' }, headers), 201);
  const replay = await api.post('/customers', { name: 'Grace' }, headers);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(await entriesOf(api, first.id, 1)).toHaveLength(1);
});

it('names the dashboard user who wrote; another account sees none of it; a standard key is refused', async () => {
  const user = await createTestUser(app.prisma, accountId, { role: 'developer', name: 'Dora Developer' });
  const session = await signIn(app.baseUrl, user.email, user.password);
  const customer = expectStatus(await session.api.post('/customers', { name: 'From the dashboard' }), 201);
  const [entry] = await entriesOf(session.api, customer.id, 1);
  expect(entry.actor).toEqual({ type: 'user', id: user.userId, name: 'Dora Developer', email: user.email });

  const other = await createTestAccount(app.prisma, { name: 'Other' });
  const otherApi = apiClient(app.baseUrl, other.apiKey);
  expect(expectStatus(await otherApi.get(`/audit-log?object=${customer.id}`), 200).data).toEqual([]);
  expect(expectStatus(await otherApi.get('/audit-log'), 200).data).toEqual([]);

  const standard = await createTestAccount(app.prisma, { role: 'standard' });
  expect((await apiClient(app.baseUrl, standard.apiKey).get('/audit-log')).status).toBe(403);
  expect((await api.get('/audit-log?take=0')).body.error).toMatchObject({ param: 'take' });
  expect((await api.get(`/audit-log?object=${'x'.repeat(101)}`)).body.error).toMatchObject({ param: 'object' });
  expect((await api.get('/audit-log?object=')).body.error).toMatchObject({ param: 'object' });
  expect((await api.get('/audit-log?actor=me')).body.error).toMatchObject({
    code: 'parameter_unknown',
    param: 'actor',
  });
});
