import { browserTest, startBrowserApp, type BrowserApp, type DashboardBrowser } from '../support/browser';
import { createTestUser, signIn } from '../support/dashboard';
import { apiClient, expectStatus, type TestApp } from '../support/harness';

/** The audit log screen in Chromium: who changed what, filtered by object; hidden from standard users. */
const browserIt = browserTest('test/dashboard/dashboard-audit-log.test.ts');

let started: BrowserApp;
let app: TestApp;
let browser: DashboardBrowser | undefined;
let accountId: string;
let apiKey: string;

beforeAll(async () => {
  started = await startBrowserApp('Audited Shop');
  ({ app, browser, accountId, apiKey } = started);
});
afterAll(() => started?.close());

browserIt(
  'a developer reads who changed what and filters by object; a standard user has no audit log',
  async () => {
    const api = apiClient(app.baseUrl, apiKey);
    const byKey = expectStatus(await api.post('/customers', { name: 'Charles Babbage' }), 201);
    const developer = await createTestUser(app.prisma, accountId, { role: 'developer', name: 'Dora Developer' });
    const session = await signIn(app.baseUrl, developer.email, developer.password);
    const byUser = expectStatus(await session.api.post('/customers', { name: 'Ada Lovelace' }), 201);
    expectStatus(await session.api.patch(`/customers/${byUser.id}`, { email: 'ada@example.com' }), 200);

    const page = await browser!.newPage();
    await browser!.signIn(page, developer);
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit log', exact: true }).waitFor();
    await page
      .getByRole('row', { name: /PATCH \/customers\/\{externalKey\}/ })
      .getByText('Dora Developer')
      .waitFor();
    await page
      .getByRole('row', { name: /API key/ })
      .getByRole('link', { name: byKey.id, exact: true })
      .waitFor();
    await browser!.screenFits(page, 'audit-log');

    await page.getByLabel('Object id', { exact: true }).fill(byUser.id);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(`**/audit-log?object=${byUser.id}`);
    await page.getByRole('link', { name: byKey.id, exact: true }).waitFor({ state: 'detached' });
    await expect(page.getByRole('row').count()).resolves.toBe(3);
    await page.getByRole('link', { name: byUser.id, exact: true }).first().click();
    await page.getByRole('heading', { name: 'Ada Lovelace', exact: true }).waitFor();

    const standard = await createTestUser(app.prisma, accountId, { role: 'standard', name: 'Sam Standard' });
    const other = await browser!.newPage(390);
    await browser!.signIn(other, standard);
    await expect(other.getByRole('navigation', { name: 'Main', exact: true }).innerText()).resolves.not.toContain(
      'Audit log',
    );
    await other.goto(`${app.baseUrl}/dashboard/audit-log`);
    await other.getByRole('heading', { name: 'Page not found', exact: true }).waitFor();
    expect(browser!.offSite).toEqual([]);
  },
  60_000,
);
