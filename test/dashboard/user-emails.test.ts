import crypto from 'node:crypto';
import http from 'node:http';
import { config } from '../../src/config';
import { createMailer, type Mailer } from '../../src/emails/mailer';
import { startSmtpCatcher, type SmtpCatcher } from '../../src/emails/smtp-catcher';
import { tokenHashOf } from '../../src/dashboard-auth/team.service';
import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { createTestUser, login, signIn, type TestSession } from '../support/dashboard';
import { createTestAccount, startTestApp, type TestAccount, type TestApp } from '../support/harness';
import { waitUntil } from '../support/emails';

/**
 * Emails to dashboard users (docs/decisions.md §32): an invitation's link, sent by the request that
 * makes it unless the account switched it off; "forgot password": a link emailed whoever asks (the same
 * answer), single use, expiring, stored hashed, rate limited, ending every session of the user. Through
 * HTTP and this file's SMTP catcher; the pages in Chromium at the end.
 */
let app: TestApp;
let catcher: SmtpCatcher;
let target: Mailer;
let account: TestAccount;
let admin: TestSession;
let browser: DashboardBrowser | undefined;
const browserIt = browserTest('test/dashboard/user-emails.test.ts');

beforeAll(async () => {
  // The app's mailer sends to the catcher, which needs the app's database: started right after.
  const mailer: Mailer = { send: (message) => target.send(message), close: () => target?.close() };
  app = await startTestApp({ mailer, loginLimits: { perEmail: 4, perAddress: 1000 } });
  catcher = await startSmtpCatcher({ prisma: app.prisma });
  target = createMailer(catcher.url);
  account = await createTestAccount(app.prisma, { name: 'Engine Works' });
  const user = await createTestUser(app.prisma, account.accountId, { role: 'superadmin', name: 'Ada' });
  admin = await signIn(app.baseUrl, user.email, user.password);
  if (haveChromium) browser = await openDashboardBrowser(app.baseUrl);
});

afterAll(async () => {
  await browser?.close();
  target?.close();
  await catcher?.stop();
  await app?.close();
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${app.baseUrl}/dashboard/api${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      origin: app.baseUrl,
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function caughtTo(to: string) {
  return app.prisma.caughtEmail.findMany({ where: { toAddresses: { has: to.toLowerCase() } }, orderBy: { id: 'asc' } });
}

/** The messages the catcher received for `to`, once there is one. */
function caughtOnce(to: string) {
  return waitUntil(async () => {
    const caught = await caughtTo(to);
    return caught.length > 0 && caught;
  });
}

/**
 * Addresses of this file's own: the caught emails' table is the suite's, and other files' customers are mailed at
 * example.com addresses too (grace@example.com got another file's receipt while this one waited for its invitation).
 */
const run = crypto.randomUUID().slice(0, 8);
const invitee = `grace.${run}@example.com`;
const invitedQuietly = `hopper.${run}@example.com`;
const stranger = `nobody.${run}@example.com`;

const linkIn = (text: string, path: string) => new RegExp(`https?://[^\\s]+${path}/([A-Za-z0-9_-]{43})`).exec(text);

describe('team invitations', () => {
  it('are emailed with their link (recorded on the invitation), unless the account switched them off', async () => {
    const created = await call('POST', '/invitations', { email: invitee, role: 'developer' }, admin.writeHeaders);
    expect(created.status).toBe(201);
    expect(created.body.emailed_at).toEqual(expect.any(Number));
    const [message] = await caughtOnce(invitee);
    expect(message!.subject).toBe('Join Engine Works on the billing dashboard');
    for (const body of [message!.text!, message!.html!]) expect(body).toContain(created.body.url);
    expect(message!.text).toContain('Ada invited you');
    const row = await app.prisma.invitation.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.emailedAt).not.toBeNull();
    expect(row.emailError).toBeNull();
    const listed = await call('GET', '/invitations', undefined, admin.cookie);
    expect(listed.body.data.find((i: { id: string }) => i.id === created.body.id).emailed_at).toBe(
      created.body.emailed_at,
    );

    expect((await call('PATCH', '/account', { emails_off: ['team_invitation'] }, admin.writeHeaders)).status).toBe(200);
    const quiet = await call('POST', '/invitations', { email: invitedQuietly, role: 'standard' }, admin.writeHeaders);
    expect(quiet.status).toBe(201);
    expect(quiet.body).toMatchObject({ emailed_at: null, url: expect.stringContaining('/dashboard/invitations/') });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await caughtTo(invitedQuietly)).toEqual([]);
    await call('PATCH', '/account', { emails_off: [] }, admin.writeHeaders);
  });
});

describe('password reset', () => {
  it('links under PUBLIC_URL whatever Host the request names (a forged Host never receives the token)', async () => {
    const user = await createTestUser(app.prisma, account.accountId, { role: 'standard', name: 'Host' });
    const port = new URL(app.baseUrl).port;
    // fetch sets Host itself: a raw request names the attacker's host, as a client of their own would.
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/dashboard/api/password-resets',
          headers: { host: 'evil.example', 'content-type': 'application/json' },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ email: user.email }));
    });
    expect(status).toBe(202);
    const [message] = await caughtOnce(user.email);
    const link = linkIn(message!.text!, '/dashboard/reset-password')![0]!;
    expect(link.startsWith(`${config.publicUrl.replace(/\/+$/, '')}/dashboard/reset-password/`)).toBe(true);
    expect(message!.text).not.toContain('evil.example');
    expect(message!.html).not.toContain('evil.example');
  });

  it('emails a single-use link stored hashed; the new password ends every session; the old one stops working', async () => {
    const user = await createTestUser(app.prisma, account.accountId, { role: 'standard', name: 'Babbage' });
    const first = await signIn(app.baseUrl, user.email, user.password);
    const second = await signIn(app.baseUrl, user.email, user.password);

    const asked = await call('POST', '/password-resets', { email: user.email.toUpperCase() });
    expect(asked).toEqual({ status: 202, body: { object: 'password_reset_request', email: user.email.toUpperCase() } });
    const [message] = await caughtOnce(user.email);
    expect(message!.subject).toBe('Reset your billing dashboard password');
    const token = linkIn(message!.text!, '/dashboard/reset-password')![1]!;
    expect(message!.html).toContain(`/dashboard/reset-password/${token}`);
    const row = await app.prisma.passwordReset.findFirstOrThrow({ where: { userId: user.userId } });
    expect(row.tokenHash).toBe(tokenHashOf(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(3_600_000);
    await waitUntil(
      async () => (await app.prisma.passwordReset.findUniqueOrThrow({ where: { id: row.id } })).emailedAt,
    );

    expect(await call('GET', `/password-resets/${token}`)).toEqual({
      status: 200,
      body: { object: 'password_reset', email: user.email, expires_at: Math.floor(row.expiresAt.getTime() / 1000) },
    });
    const short = await call('POST', `/password-resets/${token}`, { password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error.param).toBe('password');
    const foreign = await call(
      'POST',
      `/password-resets/${token}`,
      { password: 'a brand new secret' },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);

    expect((await call('POST', `/password-resets/${token}`, { password: 'a brand new secret' })).status).toBe(204);
    for (const session of [first, second]) expect((await session.session('GET')).status).toBe(401);
    expect((await login(app.baseUrl, { email: user.email, password: user.password })).status).toBe(401);
    expect((await login(app.baseUrl, { email: user.email, password: 'a brand new secret' })).status).toBe(201);

    const again = await call('POST', `/password-resets/${token}`, { password: 'another new secret' });
    expect(again.status).toBe(410);
    expect(again.body.error.code).toBe('reset_used');
    expect((await call('GET', `/password-resets/${token}`)).body.error.code).toBe('reset_used');
  });

  it('answers the same for an unknown email and sends nothing; unknown and expired links say so; requests are limited', async () => {
    const unknown = await call('POST', '/password-resets', { email: stranger });
    expect(unknown).toEqual({ status: 202, body: { object: 'password_reset_request', email: stranger } });
    expect((await call('POST', '/password-resets', { email: 'not an email' })).body.error.param).toBe('email');
    expect((await call('POST', '/password-resets', { email: 'x@example.com', extra: 1 })).status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await caughtTo(stranger)).toEqual([]);
    expect((await call('GET', `/password-resets/${'x'.repeat(43)}`)).body.error.code).toBe('reset_unknown');
    expect((await call('GET', '/password-resets/short')).status).toBe(404);

    const user = await createTestUser(app.prisma, account.accountId, { role: 'standard' });
    await call('POST', '/password-resets', { email: user.email });
    const [message] = await caughtOnce(user.email);
    const token = linkIn(message!.text!, '/dashboard/reset-password')![1]!;
    await app.prisma.passwordReset.updateMany({
      where: { userId: user.userId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await call('POST', `/password-resets/${token}`, { password: 'a brand new secret' });
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe('reset_expired');
    expect((await login(app.baseUrl, { email: user.email, password: user.password })).status).toBe(201);

    // Four requests per email in 15 minutes (this app's sign-in limit), the fifth is 429.
    const limited = 'limited@example.com';
    for (let i = 0; i < 4; i += 1)
      expect((await call('POST', '/password-resets', { email: limited })).status).toBe(202);
    const refused = await fetch(`${app.baseUrl}/dashboard/api/password-resets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: app.baseUrl },
      body: JSON.stringify({ email: limited }),
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('in a browser', () => {
  browserIt(
    '"Forgot password?" on the sign-in page, the emailed link, a new password, signed in with it (axe, screenshots)',
    async () => {
      const b = browser!;
      const user = await createTestUser(app.prisma, account.accountId, { role: 'developer', name: 'Lovelace' });
      const page = await b.newPage();
      await page.goto(`${app.baseUrl}/dashboard/login`);
      await page.getByRole('link', { name: 'Forgot password?', exact: true }).click();
      await page.getByRole('heading', { name: 'Reset your password', exact: true }).waitFor();
      await page.getByLabel('Email', { exact: true }).fill(user.email);
      await b.screen(page, 'forgot-password');
      await page.getByRole('button', { name: 'Email me a link', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'is on its way' }).waitFor();
      const [message] = await caughtOnce(user.email);
      const email = await b.newPage();
      await email.setContent(message!.html!, { waitUntil: 'load' });
      await b.screen(email, 'email-password-reset');
      const link = linkIn(message!.text!, '/dashboard/reset-password')![0]!;
      await page.goto(link.replace(/^https?:\/\/[^/]+/, app.baseUrl));
      await page.getByRole('heading', { name: 'Choose a new password', exact: true }).waitFor();
      await page.getByLabel(/^New password/).fill('a brand new secret');
      await page.getByLabel('The same again', { exact: true }).fill('a brand new secret');
      await b.screen(page, 'reset-password');
      await page.getByRole('button', { name: 'Set the new password', exact: true }).click();
      await page.getByRole('heading', { name: 'Password changed', exact: true }).waitFor();
      await page.getByRole('link', { name: 'Sign in', exact: true }).click();
      await page.getByLabel('Email', { exact: true }).fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill('a brand new secret');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('navigation').first().waitFor();
      expect(b.offSite).toEqual([]);
    },
  );
});
