import {
  apiClient,
  createTestAccount,
  expectStatus,
  startTestApp,
  type TestApp,
  type TestAccount,
} from '../support/harness';
import { createTestUser, login, signIn, type TestSession } from '../support/dashboard';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createApp } from '../../src/app';
import { tokenHashOf } from '../../src/dashboard-auth/team.service';

/**
 * The dashboard's account settings, team and invitations (docs/api.md "Dashboard team"): roles, the
 * last superadmin, invitation links (accepted once, expiring, revocable), other accounts' ids, CSRF
 * and bad bodies.
 */
let app: TestApp;
let account: TestAccount;
let other: TestAccount;
let admin: TestSession;
let adminId: string;

async function call(session: TestSession | undefined, method: string, path: string, body?: unknown, headers = {}) {
  const response = await fetch(`${app.baseUrl}/dashboard/api${path}`, {
    method,
    headers: {
      ...(session ? (method === 'GET' ? session.cookie : session.writeHeaders) : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

beforeAll(async () => {
  app = await startTestApp({ loginLimits: { perEmail: 5, perAddress: 1000 } });
  account = await createTestAccount(app.prisma, { name: 'Team account' });
  other = await createTestAccount(app.prisma, { name: 'Other team' });
  const user = await createTestUser(app.prisma, account.accountId, { role: 'superadmin', name: 'Admin' });
  adminId = user.userId;
  admin = await signIn(app.baseUrl, user.email, user.password);
});
afterAll(async () => {
  await app.close();
});

describe('account settings', () => {
  it('defaults to UTC, is changed by a superadmin only, and the session answers the zone', async () => {
    expect((await call(admin, 'GET', '/account')).body).toEqual({
      object: 'account',
      id: account.accountId,
      name: 'Team account',
      time_zone: 'UTC',
      email_from: null,
      emails_off: [],
      renewal_reminder_days: null,
      trial_end_reminder_days: null,
      brand_color: null,
    });
    const changed = await call(admin, 'PATCH', '/account', { time_zone: 'Europe/Paris' });
    expect(changed.status).toBe(200);
    expect(changed.body.time_zone).toBe('Europe/Paris');
    expect((await admin.session('GET')).body.account).toMatchObject({ time_zone: 'Europe/Paris' });

    const dev = await createTestUser(app.prisma, account.accountId, { role: 'developer' });
    const devSession = await signIn(app.baseUrl, dev.email, dev.password);
    expect((await call(devSession, 'GET', '/account')).body.time_zone).toBe('Europe/Paris');
    const refused = await call(devSession, 'PATCH', '/account', { time_zone: 'UTC' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_role');
    await call(admin, 'PATCH', '/account', { time_zone: 'UTC' });
  });

  it("sets the From of the account's emails and the kinds switched off; 400 naming a bad one", async () => {
    const changed = await call(admin, 'PATCH', '/account', {
      email_from: 'billing@team.example',
      emails_off: ['receipt', 'payment_failed'],
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      email_from: 'billing@team.example',
      emails_off: ['receipt', 'payment_failed'],
    });
    for (const [body, param] of [
      [{ email_from: 'not an address' }, 'email_from'],
      [{ emails_off: ['newsletter'] }, 'emails_off.0'],
    ] as const) {
      const refused = await call(admin, 'PATCH', '/account', body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.param).toBe(param);
    }
    const reset = await call(admin, 'PATCH', '/account', { email_from: null, emails_off: [] });
    expect(reset.body).toMatchObject({ email_from: null, emails_off: [] });
  });

  it("sets the reminders' days and the account's colour (kept lowercase); 400 naming a bad one, nothing written", async () => {
    const changed = await call(admin, 'PATCH', '/account', {
      renewal_reminder_days: 7,
      trial_end_reminder_days: 3,
      brand_color: '#0B7A5A',
      emails_off: ['renewal_reminder', 'installment_failed', 'team_invitation'],
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      renewal_reminder_days: 7,
      trial_end_reminder_days: 3,
      brand_color: '#0b7a5a',
      emails_off: ['renewal_reminder', 'installment_failed', 'team_invitation'],
    });
    for (const [body, param] of [
      [{ renewal_reminder_days: 0 }, 'renewal_reminder_days'],
      [{ renewal_reminder_days: 31 }, 'renewal_reminder_days'],
      [{ trial_end_reminder_days: 2.5 }, 'trial_end_reminder_days'],
      [{ trial_end_reminder_days: '3' }, 'trial_end_reminder_days'],
      [{ brand_color: 'green' }, 'brand_color'],
      [{ brand_color: '#0b7a5' }, 'brand_color'],
      [{ brand_color: '#0b7a5a;x' }, 'brand_color'],
      [{ renewal_reminder_days: 5, brand_color: 'red' }, 'brand_color'],
    ] as const) {
      const refused = await call(admin, 'PATCH', '/account', body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.param).toBe(param);
    }
    expect((await call(admin, 'GET', '/account')).body.renewal_reminder_days).toBe(7);
    const reset = await call(admin, 'PATCH', '/account', {
      renewal_reminder_days: null,
      trial_end_reminder_days: null,
      brand_color: null,
      emails_off: [],
    });
    expect(reset.body).toMatchObject({ renewal_reminder_days: null, trial_end_reminder_days: null, brand_color: null });
  });

  it('answers 400 naming the field for a zone Intl does not know, an unknown field or no JSON', async () => {
    for (const zone of ['Mars/Olympus', 'CET', '', 'Europe/../Paris']) {
      const answer = await call(admin, 'PATCH', '/account', { time_zone: zone });
      expect(answer.status).toBe(400);
      expect(answer.body.error.param).toBe('time_zone');
    }
    const unknown = await call(admin, 'PATCH', '/account', { colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
    const empty = await call(admin, 'PATCH', '/account', { name: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.param).toBe('name');
    const notJson = await call(admin, 'PATCH', '/account', '{', { 'content-type': 'application/json' });
    expect(notJson.status).toBe(400);
  });

  it('refuses writes without the CSRF token', async () => {
    const answer = await call(admin, 'PATCH', '/account', { name: 'Stolen' }, { 'x-csrf-token': 'nope' });
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({ code: 'csrf_token_invalid', param: 'x-csrf-token' });
    const invite = await call(
      admin,
      'POST',
      '/invitations',
      { email: 'x@example.com', role: 'standard' },
      {
        'x-csrf-token': '',
      },
    );
    expect(invite.status).toBe(403);
    expect(await app.prisma.invitation.count({ where: { email: 'x@example.com' } })).toBe(0);
  });
});

describe('members', () => {
  it('lists name, email, role and disabled; a role change applies at the next request', async () => {
    const user = await createTestUser(app.prisma, account.accountId, { role: 'standard', name: 'Grace' });
    const session = await signIn(app.baseUrl, user.email, user.password);
    expect((await session.api.get('/settings/dunning')).status).toBe(403);
    const list = await call(admin, 'GET', '/members');
    expect(list.body.data).toContainEqual({
      object: 'member',
      id: user.userId,
      name: 'Grace',
      email: user.email,
      role: 'standard',
      disabled: false,
      created: expect.any(Number),
    });
    const changed = await call(admin, 'PATCH', `/members/${user.userId}`, { role: 'developer' });
    expect(changed.status).toBe(200);
    expect(changed.body.role).toBe('developer');
    expect((await session.api.get('/settings/dunning')).status).toBe(200);
    // Standard users do not list the team, and only superadmins change it.
    expect((await call(session, 'PATCH', `/members/${adminId}`, { role: 'standard' })).status).toBe(403);
    // The change is in the audit log, with who made it (written once answered: polled).
    let audited: any[] = [];
    for (let tries = 0; tries < 50 && audited.length === 0; tries++) {
      audited = (await admin.api.get(`/audit-log?object=${user.userId}`)).body.data;
      if (audited.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(audited).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ type: 'user', id: adminId, name: 'Admin' }),
        method: 'PATCH',
        route: '/dashboard/api/members/{id}',
        path: `/dashboard/api/members/${user.userId}`,
        status: 200,
        object_id: user.userId,
      }),
    ]);
  });

  it('keeps one superadmin: demoting or removing the last one (oneself included) is a 409', async () => {
    const demote = await call(admin, 'PATCH', `/members/${adminId}`, { role: 'developer' });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toEqual({
      type: 'conflict',
      code: 'last_superadmin',
      message: 'You are the last superadmin of this account: make another member superadmin first.',
    });
    expect((await call(admin, 'DELETE', `/members/${adminId}`)).body.error.code).toBe('last_superadmin');

    const second = await createTestUser(app.prisma, account.accountId, { role: 'superadmin' });
    const secondSession = await signIn(app.baseUrl, second.email, second.password);
    expect((await call(secondSession, 'PATCH', `/members/${second.userId}`, { role: 'standard' })).status).toBe(200);
    // The demoted member's session reads the new role at once.
    expect((await call(secondSession, 'GET', '/members')).status).toBe(403);
    const removed = await call(admin, 'DELETE', `/members/${second.userId}`);
    expect(removed.status).toBe(204);
    expect((await secondSession.session('GET')).status).toBe(401);
  });

  it("answers 404 for another account's member and a malformed id, 400 for a bad role", async () => {
    const stranger = await createTestUser(app.prisma, other.accountId, { role: 'superadmin' });
    for (const id of [stranger.userId, 'not an id', 'usr_missing']) {
      const answer = await call(admin, 'PATCH', `/members/${encodeURIComponent(id)}`, { role: 'standard' });
      expect(answer.status).toBe(404);
      expect((await call(admin, 'DELETE', `/members/${encodeURIComponent(id)}`)).status).toBe(404);
    }
    expect((await app.prisma.membership.findFirst({ where: { userId: stranger.userId } }))?.role).toBe('superadmin');
    const bad = await call(admin, 'PATCH', `/members/${adminId}`, { role: 'owner' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('role');
    const missing = await call(admin, 'PATCH', `/members/${adminId}`, {});
    expect(missing.body.error).toMatchObject({ code: 'parameter_missing', param: 'role' });
  });
});

describe('invitations', () => {
  const tokenOf = (url: string) => url.split('/').pop()!;

  it('answers a one-time link stored as its digest; a new user sets name and password and is signed in', async () => {
    const created = await call(admin, 'POST', '/invitations', { email: ' New.Person@Example.com ', role: 'developer' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'invitation', email: 'new.person@example.com', role: 'developer' });
    expect(created.body.expires_at - created.body.created).toBe(7 * 24 * 3600);
    expect(created.body.url).toMatch(/\/dashboard\/invitations\/[A-Za-z0-9_-]{43}$/);
    const token = tokenOf(created.body.url);
    const row = await app.prisma.invitation.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.tokenHash).toBe(tokenHashOf(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect((await call(admin, 'GET', '/invitations')).body.data.map((i: { id: string }) => i.id)).toContain(
      created.body.id,
    );

    expect((await call(undefined, 'GET', `/join/${token}`)).body).toMatchObject({
      email: 'new.person@example.com',
      role: 'developer',
      account_name: expect.any(String),
      existing_user: false,
      time_zone: 'UTC',
    });
    const short = await call(undefined, 'POST', `/join/${token}`, { name: 'New', password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error.param).toBe('password');
    const noName = await call(undefined, 'POST', `/join/${token}`, { password: 'a long enough password' });
    expect(noName.body.error.param).toBe('name');

    const accepted = await call(undefined, 'POST', `/join/${token}`, {
      name: 'New Person',
      password: 'a long enough password',
    });
    expect(accepted.status).toBe(201);
    expect(accepted.headers.get('set-cookie')).toMatch(/^cc_session=/);
    expect(accepted.body).toMatchObject({
      user: { email: 'new.person@example.com', name: 'New Person' },
      account: { id: account.accountId, role: 'developer' },
    });
    expect(
      (await login(app.baseUrl, { email: 'new.person@example.com', password: 'a long enough password' })).status,
    ).toBe(201);

    const reused = await call(undefined, 'POST', `/join/${token}`, {
      name: 'Again',
      password: 'a long enough password',
    });
    expect(reused.status).toBe(410);
    expect(reused.body.error.code).toBe('invitation_used');
    expect((await call(undefined, 'GET', `/join/${token}`)).body.error.code).toBe('invitation_used');
  });

  it('lets an existing user join with their own password, and refuses a wrong one', async () => {
    const elsewhere = await createTestUser(app.prisma, other.accountId, { role: 'standard' });
    const created = await call(admin, 'POST', '/invitations', { email: elsewhere.email, role: 'standard' });
    const token = tokenOf(created.body.url);
    expect((await call(undefined, 'GET', `/join/${token}`)).body.existing_user).toBe(true);
    const wrong = await call(undefined, 'POST', `/join/${token}`, { password: 'not the password' });
    expect(wrong.status).toBe(401);
    const joined = await call(undefined, 'POST', `/join/${token}`, { password: elsewhere.password });
    expect(joined.status).toBe(201);
    expect(joined.body.account.id).toBe(account.accountId);
    expect(joined.body.accounts).toHaveLength(2);
    // Inviting a member again is refused.
    const again = await call(admin, 'POST', '/invitations', { email: elsewhere.email, role: 'standard' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'already_member', param: 'email' });
  });

  it('says so for an expired, revoked or unknown link', async () => {
    const expired = await call(admin, 'POST', '/invitations', { email: 'late@example.com', role: 'standard' });
    await app.prisma.invitation.update({
      where: { id: expired.body.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const late = await call(undefined, 'POST', `/join/${tokenOf(expired.body.url)}`, {
      name: 'L',
      password: 'a long enough password',
    });
    expect(late.status).toBe(410);
    expect(late.body.error.message).toBe('This invitation has expired: ask for a new one.');
    expect((await call(admin, 'GET', '/invitations')).body.data.map((i: { id: string }) => i.id)).not.toContain(
      expired.body.id,
    );

    const revoked = await call(admin, 'POST', '/invitations', { email: 'revoked@example.com', role: 'standard' });
    expect((await call(admin, 'DELETE', `/invitations/${revoked.body.id}`)).status).toBe(204);
    expect((await call(undefined, 'GET', `/join/${tokenOf(revoked.body.url)}`)).body.error.code).toBe(
      'invitation_revoked',
    );
    expect((await call(admin, 'DELETE', `/invitations/${revoked.body.id}`)).status).toBe(409);

    for (const token of ['A'.repeat(43), 'short', '../../session']) {
      const unknown = await call(undefined, 'GET', `/join/${encodeURIComponent(token)}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('invitation_unknown');
    }
  });

  it("answers 404 for another account's invitation, 400 naming the field, and refuses non-superadmins", async () => {
    const otherAdmin = await createTestUser(app.prisma, other.accountId, { role: 'superadmin' });
    const otherSession = await signIn(app.baseUrl, otherAdmin.email, otherAdmin.password);
    const theirs = await call(otherSession, 'POST', '/invitations', { email: 'theirs@example.com', role: 'standard' });
    expect(theirs.status).toBe(201);
    expect((await call(admin, 'DELETE', `/invitations/${theirs.body.id}`)).status).toBe(404);
    expect((await call(admin, 'GET', '/invitations')).body.data.map((i: { id: string }) => i.id)).not.toContain(
      theirs.body.id,
    );

    const badEmail = await call(admin, 'POST', '/invitations', { email: 'not an email', role: 'standard' });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.error.param).toBe('email');
    const badRole = await call(admin, 'POST', '/invitations', { email: 'a@example.com', role: 'root' });
    expect(badRole.body.error.param).toBe('role');
    const extra = await call(admin, 'POST', '/invitations', { email: 'a@example.com', role: 'standard', admin: true });
    expect(extra.body.error).toMatchObject({ code: 'parameter_unknown', param: 'admin' });
    const notJson = await call(admin, 'POST', '/invitations', 'email=a', { 'content-type': 'text/plain' });
    expect(notJson.status).toBe(415);

    const dev = await createTestUser(app.prisma, account.accountId, { role: 'developer' });
    const devSession = await signIn(app.baseUrl, dev.email, dev.password);
    expect((await call(devSession, 'POST', '/invitations', { email: 'b@example.com', role: 'standard' })).status).toBe(
      403,
    );
    expect((await call(devSession, 'GET', '/invitations')).status).toBe(403);
    expect((await call(undefined, 'GET', '/members')).status).toBe(401);
  });

  it("keeps the link's token out of the request log (page and API) and the route metrics", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const server = http.createServer(
      createApp({ prisma: app.prisma, temporal: app.temporal, logger: pino({ level: 'info' }, sink) }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const created = await call(admin, 'POST', '/invitations', { email: 'logged@example.com', role: 'standard' });
      const token = tokenOf(created.body.url);
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await fetch(`${base}/dashboard/invitations/${token}`);
      await fetch(`${base}/dashboard/api/join/${token}`);
      expect(lines.join('\n')).not.toContain(token);
      const entries = lines.map((line) => JSON.parse(line));
      expect(entries).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: '/dashboard/invitations/{token}' }),
          expect.objectContaining({ path: '/dashboard/api/join/{token}', route: '/dashboard/api/join/{token}' }),
        ]),
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('in the route table', () => {
  it('documents every team endpoint in /openapi.json with the session alone; a key is refused', async () => {
    const document = (await apiClient(app.baseUrl).get('/openapi.json')).body as {
      paths: Record<string, Record<string, { security: unknown }>>;
    };
    const team = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/dashboard/api/'))
      .flatMap(([path, operations]) =>
        Object.entries(operations).map(([method, operation]) => [`${method} ${path}`, operation.security]),
      );
    expect(Object.fromEntries(team)).toEqual({
      'get /dashboard/api/account': [{ session: [] }],
      'patch /dashboard/api/account': [{ session: [] }],
      'get /dashboard/api/members': [{ session: [] }],
      'patch /dashboard/api/members/{id}': [{ session: [] }],
      'delete /dashboard/api/members/{id}': [{ session: [] }],
      'get /dashboard/api/invitations': [{ session: [] }],
      'post /dashboard/api/invitations': [{ session: [] }],
      'delete /dashboard/api/invitations/{id}': [{ session: [] }],
    });
    const withKey = await apiClient(app.baseUrl, account.apiKey).get('/dashboard/api/members');
    expect(withKey.status).toBe(401);
    expect(withKey.body.error.code).toBe('session_invalid');
  });

  it('audits a team change with the user who made it, the route template and the status', async () => {
    const user = await createTestUser(app.prisma, account.accountId, { role: 'standard', name: 'Audited member' });
    const changed = await admin.api.patch(`/dashboard/api/members/${user.userId}`, { role: 'developer' });
    expect(changed.status).toBe(200);
    const invited = expectStatus(
      await admin.api.post('/dashboard/api/invitations', { email: 'audited.invite@example.com', role: 'standard' }),
      201,
    );
    expect(expectStatus(await admin.api.delete(`/dashboard/api/invitations/${invited.id}`), 204)).toBeUndefined();
    const actor = { type: 'user', id: adminId, name: 'Admin', email: expect.any(String) };
    for (const [object, count] of [
      [user.userId, 1],
      [invited.id, 2],
    ] as const) {
      let entries: any[] = [];
      // Entries are written once the answer is sent.
      for (let tries = 0; tries < 100 && entries.length < count; tries++) {
        entries = expectStatus(await admin.api.get(`/audit-log?object=${object}`), 200).data;
        if (entries.length < count) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(entries).toHaveLength(count);
      for (const entry of entries) expect(entry.actor).toEqual(actor);
    }
    const entries = expectStatus(await admin.api.get(`/audit-log?object=${invited.id}`), 200).data;
    expect(entries.map((entry: any) => [entry.method, entry.route, entry.status])).toEqual([
      ['DELETE', '/dashboard/api/invitations/{id}', 204],
      ['POST', '/dashboard/api/invitations', 201],
    ]);
  });

  it("counts against the user's rate limit like every route: 429 before any work once spent", async () => {
    const limitedApp = await startTestApp({ rateLimit: { perSecond: 5, burst: 3, processes: 1 } });
    try {
      const limitedAccount = await createTestAccount(limitedApp.prisma, { name: 'Limited team' });
      const user = await createTestUser(limitedApp.prisma, limitedAccount.accountId, { role: 'superadmin' });
      const session = await signIn(limitedApp.baseUrl, user.email, user.password);
      // The limit refills each second: on a busy machine a second can turn between the burst's last answer and the
      // POST, which then passes like any request of a new second. Spent again and tried again, up to five times.
      let refusedEmail: string | undefined;
      for (let attempt = 1; attempt <= 5 && !refusedEmail; attempt += 1) {
        const answers = await Promise.all(Array.from({ length: 20 }, () => session.api.get('/dashboard/api/members')));
        const limited = answers.filter((answer) => answer.status === 429);
        expect(limited.length).toBeGreaterThan(0);
        expect(limited[0]!.body.error.code).toBe('rate_limit');
        expect(limited[0]!.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        const email = `throttled-${attempt}@example.com`;
        const invited = await session.api.post('/dashboard/api/invitations', { email, role: 'standard' });
        if (invited.status === 429) {
          expect(invited.body.error.code).toBe('rate_limit');
          refusedEmail = email;
        } else expect(invited.status).toBe(201);
      }
      expect(refusedEmail).toBeDefined();
      // Refused before any work: no invitation written for it.
      expect(await limitedApp.prisma.invitation.count({ where: { email: refusedEmail } })).toBe(0);
    } finally {
      await limitedApp.close();
    }
  });
});
