import { apiClient, createTestAccount, startTestApp, type TestApp, type TestAccount } from '../support/harness';
import { createTestUser, login, signIn } from '../support/dashboard';
import { sessionIdOf } from '../../src/dashboard-auth/session.service';
import { createUser } from '../../src/dashboard-auth/user.service';

/**
 * Dashboard sign-in (docs/api.md "Dashboard sessions"): sessions in PostgreSQL behind an httpOnly
 * cookie, CSRF on writes, expiry, sign-in limits, and the REST API answering a session exactly as a key
 * of the membership's role on the session's account.
 */
let app: TestApp;
let account: TestAccount;
let other: TestAccount;
beforeAll(async () => {
  app = await startTestApp({ loginLimits: { perEmail: 3, perAddress: 1000 } });
  account = await createTestAccount(app.prisma, { name: 'Session account' });
  other = await createTestAccount(app.prisma, { name: 'Another account' });
});
afterAll(async () => {
  await app.close();
});

describe('sign-in', () => {
  it('answers 401 with one generic message for an unknown email, a wrong password and a disabled user', async () => {
    const user = await createTestUser(app.prisma, account.accountId);
    const disabled = await createTestUser(app.prisma, account.accountId);
    await app.prisma.user.update({ where: { id: disabled.userId }, data: { disabled: true } });
    const answers = [
      await login(app.baseUrl, { email: 'nobody@example.com', password: 'whatever it is' }),
      await login(app.baseUrl, { email: user.email, password: 'not the password' }),
      await login(app.baseUrl, { email: disabled.email, password: disabled.password }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.body.error).toEqual({
        type: 'authentication_error',
        code: 'invalid_credentials',
        message: 'The email or password is incorrect.',
      });
      expect(answer.setCookie).toBeNull();
    }
  });

  it('names the field of a bad body', async () => {
    expect((await login(app.baseUrl, { password: 'x' })).body.error).toMatchObject({
      code: 'parameter_missing',
      param: 'email',
    });
    expect((await login(app.baseUrl, { email: 'a@example.com', password: 'x', extra: 1 })).body.error).toMatchObject({
      code: 'parameter_unknown',
      param: 'extra',
    });
  });

  it('sets an httpOnly SameSite=Lax cookie, stores only its digest, and answers the user, accounts and CSRF token', async () => {
    const user = await createTestUser(app.prisma, account.accountId, { role: 'standard', name: 'Ada' });
    // Emails are case-insensitive.
    const answer = await login(app.baseUrl, { email: `  ${user.email.toUpperCase()} `, password: user.password });
    expect(answer.status).toBe(201);
    expect(answer.setCookie).toMatch(/^cc_session=[A-Za-z0-9_-]{43}; Path=\/; Expires=.*; HttpOnly; SameSite=Lax$/);
    expect(answer.body).toMatchObject({
      object: 'session',
      user: { id: user.userId, email: user.email, name: 'Ada' },
      account: { id: account.accountId, name: 'Session account', role: 'standard' },
      accounts: [{ id: account.accountId, name: 'Session account', role: 'standard' }],
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      temporal_workflows_url: expect.stringMatching(/^http:\/\/localhost:\d+\/namespaces\/default\/workflows$/),
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const row = await app.prisma.session.findUnique({ where: { id: sessionIdOf(answer.token!) } });
    expect(row).toMatchObject({ userId: user.userId, accountId: account.accountId });
    expect(await app.prisma.session.count({ where: { id: answer.token! } })).toBe(0);

    const session = await signIn(app.baseUrl, user.email, user.password);
    const current = await session.session('GET');
    expect(current.status).toBe(200);
    expect(current.body.user.id).toBe(user.userId);
  });

  it('refuses a sign-in posted from another origin', async () => {
    const user = await createTestUser(app.prisma, account.accountId);
    const answer = await login(
      app.baseUrl,
      { email: user.email, password: user.password },
      { origin: 'https://evil.example' },
    );
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('origin_refused');
  });

  it('limits failed sign-ins per email, even with the right password afterwards, and per client address', async () => {
    const user = await createTestUser(app.prisma, account.accountId);
    for (let i = 0; i < 3; i++)
      expect((await login(app.baseUrl, { email: user.email, password: 'wrong password' })).status).toBe(401);
    const limited = await login(app.baseUrl, { email: user.email, password: user.password });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limit');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

    const strict = await startTestApp({ loginLimits: { perEmail: 100, perAddress: 2 } });
    try {
      const victim = await createTestUser(strict.prisma, account.accountId);
      expect((await login(strict.baseUrl, { email: 'a@example.com', password: 'guess one' })).status).toBe(401);
      expect((await login(strict.baseUrl, { email: 'b@example.com', password: 'guess two' })).status).toBe(401);
      expect((await login(strict.baseUrl, { email: victim.email, password: victim.password })).status).toBe(429);
    } finally {
      await strict.close();
    }
  });

  it('a successful sign-in clears the email count', async () => {
    const user = await createTestUser(app.prisma, account.accountId);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2; i++)
        expect((await login(app.baseUrl, { email: user.email, password: 'wrong password' })).status).toBe(401);
      expect((await login(app.baseUrl, { email: user.email, password: user.password })).status).toBe(201);
    }
  });
});

describe('the REST API with a session', () => {
  it('works as a key of the same role on the session account, and another account stays 404', async () => {
    const user = await createTestUser(app.prisma, account.accountId, { role: 'developer' });
    const { api } = await signIn(app.baseUrl, user.email, user.password);
    const created = await api.post('/customers', { name: 'Grace Hopper', email: 'grace@example.com' });
    expect(created.status).toBe(201);
    const byKey = await apiClient(app.baseUrl, account.apiKey).get(`/customers/${created.body.id}`);
    expect(byKey.status).toBe(200);
    expect((await api.get(`/customers/${created.body.id}`)).body).toEqual(byKey.body);
    expect((await api.get('/webhook/destination')).status).toBe(200);

    const theirs = await apiClient(app.baseUrl, other.apiKey).post('/customers', { name: 'Not yours' });
    expect((await api.get(`/customers/${theirs.body.id}`)).status).toBe(404);
    expect((await api.patch(`/customers/${theirs.body.id}`, { name: 'Mine now' })).status).toBe(404);
    expect((await api.get('/customers')).body.map((customer: { id: string }) => customer.id)).not.toContain(
      theirs.body.id,
    );
  });

  it('refuses developer-only endpoints to a standard user with 403', async () => {
    const user = await createTestUser(app.prisma, account.accountId, { role: 'standard' });
    const { api } = await signIn(app.baseUrl, user.email, user.password);
    expect((await api.get('/customers')).status).toBe(200);
    for (const answer of [
      await api.get('/webhook/destination'),
      await api.post('/webhook/destination', { url: 'https://example.com/hook' }),
      await api.get('/webhook/logs'),
      await api.get('/settings/dunning'),
    ]) {
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('insufficient_role');
      expect(answer.body.error.message).toContain('you have role standard');
    }
  });

  it('requires the CSRF token and the same Origin on writes, not on reads', async () => {
    const user = await createTestUser(app.prisma, account.accountId);
    const session = await signIn(app.baseUrl, user.email, user.password);
    const raw = apiClient(app.baseUrl);
    const noToken = await raw.post('/customers', { name: 'Forged' }, { ...session.cookie, origin: app.baseUrl });
    expect(noToken.status).toBe(403);
    expect(noToken.body.error).toMatchObject({ code: 'csrf_token_invalid', param: 'x-csrf-token' });
    const wrongToken = await raw.post(
      '/customers',
      { name: 'Forged' },
      { ...session.writeHeaders, 'x-csrf-token': 'x' },
    );
    expect(wrongToken.status).toBe(403);
    const otherOrigin = await raw.post(
      '/customers',
      { name: 'Forged' },
      { ...session.writeHeaders, origin: 'https://evil.example' },
    );
    expect(otherOrigin.status).toBe(403);
    expect(otherOrigin.body.error.code).toBe('origin_refused');
    // Without Origin (not a browser) the token alone is enough.
    const { origin: _origin, ...withoutOrigin } = session.writeHeaders;
    expect((await raw.post('/customers', { name: 'Scripted' }, withoutOrigin)).status).toBe(201);
    expect((await raw.get('/customers', session.cookie)).status).toBe(200);
    expect(await app.prisma.customer.count({ where: { accountId: account.accountId, name: 'Forged' } })).toBe(0);
  });

  it('leaves API-key requests as they were, whatever cookie comes with them', async () => {
    const user = await createTestUser(app.prisma, other.accountId, { role: 'standard' });
    const session = await signIn(app.baseUrl, user.email, user.password);
    const keyed = apiClient(app.baseUrl, account.apiKey);
    const created = await keyed.post('/customers', { name: 'Keyed' }, session.cookie);
    expect(created.status).toBe(201);
    expect((await keyed.get(`/customers/${created.body.id}`, session.cookie)).status).toBe(200);
    expect((await keyed.get('/webhook/destination', session.cookie)).status).toBe(200);
    expect((await apiClient(app.baseUrl).get('/customers')).body.error.code).toBe('api_key_missing');
  });

  it('applies a role change and a disabled user at the next request', async () => {
    const user = await createTestUser(app.prisma, account.accountId, { role: 'developer' });
    const { api, session } = await signIn(app.baseUrl, user.email, user.password);
    expect((await api.get('/webhook/destination')).status).toBe(200);
    await app.prisma.membership.update({
      where: { userId_accountId: { userId: user.userId, accountId: account.accountId } },
      data: { role: 'standard' },
    });
    expect((await api.get('/webhook/destination')).status).toBe(403);
    expect((await session('GET')).body.account.role).toBe('standard');

    await app.prisma.user.update({ where: { id: user.userId }, data: { disabled: true } });
    const refused = await api.get('/customers');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('session_invalid');
    expect(await app.prisma.session.count({ where: { userId: user.userId } })).toBe(0);
  });

  it('answers 401 once the membership of the session account is gone', async () => {
    const user = await createTestUser(app.prisma, account.accountId);
    const { api } = await signIn(app.baseUrl, user.email, user.password);
    await app.prisma.membership.deleteMany({ where: { userId: user.userId } });
    expect((await api.get('/customers')).status).toBe(401);
  });
});

describe('session lifetime', () => {
  it('logout deletes the session row and clears the cookie', async () => {
    const user = await createTestUser(app.prisma, account.accountId);
    const session = await signIn(app.baseUrl, user.email, user.password);
    const forged = await session.session('DELETE', '', undefined, { 'x-csrf-token': 'nope' });
    expect(forged.status).toBe(403);
    const out = await session.session('DELETE');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^cc_session=; Path=\/; Expires=Thu, 01 Jan 1970/);
    expect(await app.prisma.session.count({ where: { id: sessionIdOf(session.token) } })).toBe(0);
    expect((await session.api.get('/customers')).status).toBe(401);
    expect((await session.session('GET')).status).toBe(401);
  });

  it('ends a session idle too long, and one past its absolute expiry however active', async () => {
    const user = await createTestUser(app.prisma, account.accountId);
    const idle = await signIn(app.baseUrl, user.email, user.password);
    await app.prisma.session.update({
      where: { id: sessionIdOf(idle.token) },
      data: { lastSeenAt: new Date(Date.now() - 61 * 60_000) },
    });
    expect((await idle.api.get('/customers')).status).toBe(401);
    expect(await app.prisma.session.count({ where: { id: sessionIdOf(idle.token) } })).toBe(0);

    const old = await signIn(app.baseUrl, user.email, user.password);
    expect((await old.api.get('/customers')).status).toBe(200);
    await app.prisma.session.update({ where: { id: sessionIdOf(old.token) }, data: { expiresAt: new Date() } });
    expect((await old.api.get('/customers')).status).toBe(401);
    expect((await old.session('GET')).status).toBe(401);
  });

  it('stamps activity at most once a minute, which pushes the idle expiry on', async () => {
    const user = await createTestUser(app.prisma, account.accountId);
    const session = await signIn(app.baseUrl, user.email, user.password);
    const id = sessionIdOf(session.token);
    const before = new Date(Date.now() - 50 * 60_000);
    await app.prisma.session.update({ where: { id }, data: { lastSeenAt: before } });
    expect((await session.api.get('/customers')).status).toBe(200);
    const touched = await app.prisma.session.findUniqueOrThrow({ where: { id } });
    expect(touched.lastSeenAt.getTime()).toBeGreaterThan(Date.now() - 10_000);
  });
});

describe('accounts and passwords', () => {
  it('switches between the accounts the user belongs to, and 404 for another', async () => {
    const user = await createTestUser(app.prisma, account.accountId, { role: 'standard' });
    const added = await createUser(app.prisma, { accountId: other.accountId, email: user.email, role: 'superadmin' });
    expect(added.outcome).toBe('member_added');
    const session = await signIn(app.baseUrl, user.email, user.password);
    const theirs = await apiClient(app.baseUrl, other.apiKey).post('/customers', { name: 'Other account customer' });
    expect((await session.api.get(`/customers/${theirs.body.id}`)).status).toBe(404);

    const switched = await session.session('POST', '/account', { account: other.accountId });
    expect(switched.status).toBe(200);
    expect(switched.body.account).toEqual({
      id: other.accountId,
      name: 'Another account',
      role: 'superadmin',
      time_zone: 'UTC',
    });
    expect(switched.body.accounts).toHaveLength(2);
    expect((await session.api.get(`/customers/${theirs.body.id}`)).status).toBe(200);
    expect((await session.api.get('/webhook/destination')).status).toBe(200);

    const stranger = await createTestAccount(app.prisma, { name: 'Stranger' });
    const refused = await session.session('POST', '/account', { account: stranger.accountId });
    expect(refused.status).toBe(404);
    expect(refused.body.error.param).toBe('account');
    expect((await session.session('POST', '/account', {})).body.error).toMatchObject({ param: 'account' });
    expect(
      (await session.session('POST', '/account', { account: account.accountId }, { 'x-csrf-token': '' })).status,
    ).toBe(403);
  });

  it('changes the password: the current one is checked, other sessions end, the new one signs in', async () => {
    const user = await createTestUser(app.prisma, account.accountId);
    const first = await signIn(app.baseUrl, user.email, user.password);
    const second = await signIn(app.baseUrl, user.email, user.password);
    const wrong = await first.session('POST', '/password', {
      current_password: 'not it at all',
      new_password: 'a much better one',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'password_incorrect', param: 'current_password' });
    const short = await first.session('POST', '/password', { current_password: user.password, new_password: 'short' });
    expect(short.body.error).toMatchObject({ param: 'new_password' });

    const changed = await first.session('POST', '/password', {
      current_password: user.password,
      new_password: 'a much better one',
    });
    expect(changed.status).toBe(204);
    expect((await first.api.get('/customers')).status).toBe(200);
    expect((await second.api.get('/customers')).status).toBe(401);
    expect((await login(app.baseUrl, { email: user.email, password: user.password })).status).toBe(401);
    expect((await login(app.baseUrl, { email: user.email, password: 'a much better one' })).status).toBe(201);
    const stored = await app.prisma.user.findUniqueOrThrow({ where: { id: user.userId } });
    expect(stored.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
  });
});
