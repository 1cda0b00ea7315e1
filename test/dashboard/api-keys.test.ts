import { apiClient, createTestAccount, startTestApp, type TestAccount, type TestApp } from '../support/harness';
import { createTestUser, signIn, type TestSession } from '../support/dashboard';
import { allowPrivateWebhookTargets } from '../support/webhooks';

/**
 * The account's API keys over REST (docs/api.md "API keys"): developers and superadmins only, a key's
 * secret answered once, roles bounded by the caller's, another account's ids 404, bad bodies 400.
 */
let app: TestApp;
let account: TestAccount;
let other: TestAccount;
let developer: TestSession;
let superadmin: TestSession;
let standard: TestSession;

beforeAll(async () => {
  allowPrivateWebhookTargets();
  app = await startTestApp();
  account = await createTestAccount(app.prisma, { name: 'Keys account', role: 'superadmin' });
  other = await createTestAccount(app.prisma, { name: 'Other keys account' });
  const users = await Promise.all(
    (['developer', 'superadmin', 'standard'] as const).map((role) =>
      createTestUser(app.prisma, account.accountId, { role }),
    ),
  );
  const sessions = await Promise.all(users.map((user) => signIn(app.baseUrl, user.email, user.password)));
  [developer, superadmin, standard] = sessions as [TestSession, TestSession, TestSession];
});
afterAll(async () => {
  await app.close();
});

/** Every string in an answer, flattened, to look for a secret anywhere in it. */
const text = (body: unknown) => JSON.stringify(body);

describe('API keys over REST', () => {
  it('issues a key whose secret is answered once, works, and is never listed', async () => {
    const created = await developer.api.post('/api-keys', { role: 'standard' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'api_key', role: 'standard', status: 'active', expires: null });
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^sk_test_/);
    expect(created.body.hint).toBe(`${secret.slice(0, 12)}…`);

    // The new key authenticates, with its own role.
    const asKey = apiClient(app.baseUrl, secret);
    expect((await asKey.get('/customers')).status).toBe(200);
    expect((await asKey.get('/api-keys')).status).toBe(403);

    const listed = await developer.api.get('/api-keys');
    expect(listed.status).toBe(200);
    const mine = listed.body.find((key: { id: string }) => key.id === created.body.id);
    expect(mine).toEqual({ ...created.body, secret: undefined, last_used: expect.any(Number) });
    expect(text(listed.body)).not.toContain(secret.slice(12));
    expect(text(listed.body)).not.toMatch(/secret|hash/);
    // Neither through a key.
    expect(text((await apiClient(app.baseUrl, account.apiKey).get('/api-keys')).body)).not.toContain(secret.slice(12));
  });

  it('bounds the role by the caller: a developer cannot issue, revoke or rotate a superadmin key', async () => {
    const refused = await developer.api.post('/api-keys', { role: 'superadmin' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'role_above_yours', param: 'role' });
    expect((await developer.api.post('/api-keys', { role: 'developer' })).status).toBe(201);

    const top = await superadmin.api.post('/api-keys', { role: 'superadmin' });
    expect(top.status).toBe(201);
    for (const action of ['revoke', 'rotate']) {
      const answer = await developer.api.post(`/api-keys/${top.body.id}/${action}`, {});
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('role_above_yours');
    }
    expect((await apiClient(app.baseUrl, top.body.secret).get('/customers')).status).toBe(200);
  });

  it('answers a standard user 403 on every key endpoint', async () => {
    const key = (await developer.api.post('/api-keys', { role: 'standard' })).body;
    const answers = [
      await standard.api.get('/api-keys'),
      await standard.api.post('/api-keys', { role: 'standard' }),
      await standard.api.post(`/api-keys/${key.id}/revoke`, {}),
      await standard.api.post(`/api-keys/${key.id}/rotate`, {}),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('insufficient_role');
    }
  });

  it("answers 404 for another account's key and for an unknown one", async () => {
    const theirs = (await apiClient(app.baseUrl, other.apiKey).post('/api-keys', { role: 'standard' })).body;
    for (const id of [theirs.id, 'key_doesnotexist', 'not-an-id']) {
      for (const action of ['revoke', 'rotate']) {
        const answer = await developer.api.post(`/api-keys/${id}/${action}`, {});
        expect(answer.status).toBe(404);
        expect(answer.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
      }
    }
    expect(text((await developer.api.get('/api-keys')).body)).not.toContain(theirs.id);
    expect((await apiClient(app.baseUrl, theirs.secret).get('/customers')).status).toBe(200);
  });

  it('revokes a key (401 from then on) and refuses to revoke it twice', async () => {
    const key = (await developer.api.post('/api-keys', { role: 'developer' })).body;
    const revoked = await developer.api.post(`/api-keys/${key.id}/revoke`, {});
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: key.id, status: 'revoked', expires: expect.any(Number) });
    expect(revoked.body.secret).toBeUndefined();
    // Never used before, so not in the authentication cache: refused at once.
    expect((await apiClient(app.baseUrl, key.secret).get('/customers')).status).toBe(401);
    const again = await developer.api.post(`/api-keys/${key.id}/revoke`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('api_key_revoked');
    expect((await developer.api.post(`/api-keys/${key.id}/rotate`, {})).body.error.code).toBe('api_key_revoked');
  });

  it('rotates with an overlap, refuses a second rotation while the successor works, and forces one', async () => {
    const key = (await developer.api.post('/api-keys', { role: 'standard' })).body;
    const rotated = await developer.api.post(`/api-keys/${key.id}/rotate`, { overlap_hours: 1 });
    expect(rotated.status).toBe(200);
    const { key: next, previous, left_live } = rotated.body;
    expect(next).toMatchObject({ role: 'standard', status: 'active', secret: expect.stringMatching(/^sk_test_/) });
    expect(previous).toMatchObject({ id: key.id, status: 'expiring', replaced_by: next.id });
    expect(previous.expires - previous.created).toBeGreaterThanOrEqual(3599);
    expect(left_live).toBeNull();
    // Both work during the overlap.
    expect((await apiClient(app.baseUrl, key.secret).get('/customers')).status).toBe(200);
    expect((await apiClient(app.baseUrl, next.secret).get('/customers')).status).toBe(200);

    const second = await developer.api.post(`/api-keys/${key.id}/rotate`, {});
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('api_key_already_rotated');
    expect(second.body.error.message).toContain(next.id);

    const forced = await developer.api.post(`/api-keys/${key.id}/rotate`, { force: true });
    expect(forced.status).toBe(200);
    expect(forced.body.left_live).toBe(next.id);
    expect(text((await developer.api.get('/api-keys')).body)).not.toContain(forced.body.key.secret.slice(12));
  });

  it('refuses a key that would end its own requests: revoking itself, rotating itself without an overlap', async () => {
    const key = (await developer.api.post('/api-keys', { role: 'developer' })).body;
    const asKey = apiClient(app.baseUrl, key.secret);
    for (const [path, body] of [
      [`/api-keys/${key.id}/revoke`, {}],
      [`/api-keys/${key.id}/rotate`, { overlap_hours: 0 }],
    ] as const) {
      const answer = await asKey.post(path, body);
      expect(answer.status).toBe(409);
      expect(answer.body.error.code).toBe('api_key_in_use');
    }
    expect((await asKey.get('/api-keys')).status).toBe(200);
    // With an overlap it may: it is answered its successor and keeps working meanwhile.
    const rotated = await asKey.post(`/api-keys/${key.id}/rotate`, { overlap_hours: 1 });
    expect(rotated.status).toBe(200);
    expect((await asKey.get('/api-keys')).status).toBe(200);
    // Another credential (here the dashboard session) revokes it.
    expect((await developer.api.post(`/api-keys/${key.id}/revoke`, {})).status).toBe(200);
  });

  it('issues one key for a creation retried with the same Idempotency-Key, answering it again', async () => {
    const headers = { 'idempotency-key': `create-key-${Date.now()}` };
    const keys = () => app.prisma.apiKey.count({ where: { accountId: account.accountId } });
    const before = await keys();
    const first = await developer.api.post('/api-keys', { role: 'standard' }, headers);
    const again = await developer.api.post('/api-keys', { role: 'standard' }, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await keys()).toBe(before + 1);
    const rows = await app.prisma.idempotencyKey.findMany({ where: { key: headers['idempotency-key'] } });
    expect(JSON.stringify(rows)).not.toContain(first.body.secret);
  });

  it('records who changed a key in operator_actions', async () => {
    const key = (await superadmin.api.post('/api-keys', { role: 'standard' })).body;
    const actions = await app.prisma.operatorAction.findMany({ where: { target: key.id } });
    expect(actions).toEqual([expect.objectContaining({ runAs: 'api', command: 'POST /api-keys' })]);
    expect(actions[0]!.operator).toMatch(/^user:/);
  });

  it('answers a bad body 400 naming the field, never 500', async () => {
    const key = (await developer.api.post('/api-keys', { role: 'standard' })).body;
    const cases: [string, unknown, string][] = [
      ['/api-keys', {}, 'role'],
      ['/api-keys', { role: 'owner' }, 'role'],
      ['/api-keys', { role: 'standard', secret: 'mine' }, 'secret'],
      ['/api-keys', { role: 7 }, 'role'],
      [`/api-keys/${key.id}/rotate`, { overlap_hours: 721 }, 'overlap_hours'],
      [`/api-keys/${key.id}/rotate`, { overlap_hours: 1.5 }, 'overlap_hours'],
      [`/api-keys/${key.id}/rotate`, { force: 'yes' }, 'force'],
      [`/api-keys/${key.id}/rotate`, { extra: 1 }, 'extra'],
    ];
    for (const [path, body, param] of cases) {
      const answer = await developer.api.post(path, body);
      expect({ path, body, status: answer.status, param: answer.body.error?.param }).toEqual({
        path,
        body,
        status: 400,
        param,
      });
    }
    const notJson = await developer.api.request('POST', '/api-keys', '{"role":', {
      'content-type': 'application/json',
    });
    expect(notJson.status).toBe(400);
  });

  it('lists the key endpoints in /openapi.json with their schemas', async () => {
    const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as any;
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/api-keys', '/api-keys/{id}/revoke', '/api-keys/{id}/rotate']),
    );
    expect(document.components.schemas.ApiKey.properties).not.toHaveProperty('secret');
    expect(text(document.components.schemas.ApiKeyCreated)).toContain('secret');
  });
});

describe('webhook destinations of another account', () => {
  it('answer 404, and a signing secret is answered only on creation and roll', async () => {
    const theirs = await apiClient(app.baseUrl, other.apiKey).post('/webhook/destination', {
      url: 'https://example.com/hook',
    });
    expect(theirs.status).toBe(201);
    const id = theirs.body.id;
    const answers = [
      await developer.api.put(`/webhook/destination/${id}`, { url: 'https://example.com/mine' }),
      await developer.api.patch(`/webhook/destination/${id}/disable`),
      await developer.api.patch(`/webhook/destination/${id}/enable`),
      await developer.api.post(`/webhook/destination/${id}/roll-secret`),
      await developer.api.delete(`/webhook/destination/${id}`),
    ];
    for (const answer of answers) expect(answer.status).toBe(404);

    const mine = await developer.api.post('/webhook/destination', { url: 'https://example.com/ours' });
    const rolled = await developer.api.post(`/webhook/destination/${mine.body.id}/roll-secret`);
    const listed = text((await developer.api.get('/webhook/destination')).body);
    for (const secret of [mine.body.secret, rolled.body.secret]) expect(listed).not.toContain(secret);
    expect(listed).not.toContain(theirs.body.id);
  });
});
