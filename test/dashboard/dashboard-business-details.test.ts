import { browserTest, startBrowserApp, type BrowserApp } from '../support/browser';
import { apiClient, createTestAccount, expectStatus } from '../support/harness';
import { createTestUser } from '../support/dashboard';

/**
 * Settings' Business details in Chromium (docs/api.md, "Business details"): a superadmin fills and saves them
 * (the API then answers them), a refused field is marked and its error said, an emptied field is cleared, a
 * standard user reads them without a form, and another account's user sees none of them.
 */
const browserIt = browserTest('test/dashboard/dashboard-business-details.test.ts');

let world: BrowserApp;
let superadmin: { email: string; password: string };
let standard: { email: string; password: string };
let stranger: { email: string; password: string };

beforeAll(async () => {
  world = await startBrowserApp('Engines');
  superadmin = await createTestUser(world.app.prisma, world.accountId, { role: 'superadmin', name: 'Sue Super' });
  standard = await createTestUser(world.app.prisma, world.accountId, { role: 'standard', name: 'Stan Dard' });
  const other = await createTestAccount(world.app.prisma, { name: 'Elsewhere' });
  stranger = await createTestUser(world.app.prisma, other.accountId, { role: 'superadmin', name: 'Sid Stranger' });
});
afterAll(() => world?.close());

const settings = () => `${world.app.baseUrl}/dashboard/settings`;

describe('Settings: business details', () => {
  browserIt('a superadmin saves them, sees a refused field marked, and clears one', async () => {
    const { browser } = world;
    const page = await browser!.newPage();
    await browser!.signIn(page, superadmin);
    await page.goto(settings());
    const form = page.getByRole('form', { name: 'Business details', exact: true });
    await form.waitFor();
    await form.getByLabel('Legal name', { exact: true }).fill('Analytical Engines Ltd');
    await form.getByLabel('Address line 1', { exact: true }).fill('1 Dorset Street');
    await form.getByLabel('City', { exact: true }).fill('London');
    await form.getByLabel('Postal code', { exact: true }).fill('W1U 4EG');
    await form.getByLabel('Country (two letters, e.g. GB)', { exact: true }).fill('United Kingdom');
    await form.getByLabel('Support email', { exact: true }).fill('billing@engines.example');
    await form.getByLabel('Support phone', { exact: true }).fill('+44 20 7946 0000');
    await form.getByLabel('Tax ID (VAT number, EIN…)', { exact: true }).fill('GB123456789');
    await form.getByRole('button', { name: 'Save business details', exact: true }).click();
    const alert = page.locator('#business-details-error');
    await expect(alert.innerText()).resolves.toMatch(/address\.country/);
    await expect(
      form.getByLabel('Country (two letters, e.g. GB)', { exact: true }).getAttribute('aria-invalid'),
    ).resolves.toBe('true');
    await world.browser!.screenFits(page, 'settings-business-details-refused');

    await form.getByLabel('Country (two letters, e.g. GB)', { exact: true }).fill('GB');
    await form.getByRole('button', { name: 'Save business details', exact: true }).click();
    await page
      .getByText('Saved. Invoices finalized from now on show these details; issued ones keep theirs.')
      .waitFor();
    const api = apiClient(world.app.baseUrl, world.apiKey);
    expect(expectStatus(await api.get('/settings/business-details'), 200)).toEqual({
      object: 'business_details',
      legal_name: 'Analytical Engines Ltd',
      address: { line1: '1 Dorset Street', city: 'London', postal_code: 'W1U 4EG', country: 'GB' },
      support_email: 'billing@engines.example',
      support_phone: '+44 20 7946 0000',
      tax_id: 'GB123456789',
    });
    await world.browser!.screenFits(page, 'settings-business-details');

    await form.getByLabel('Support phone', { exact: true }).fill('');
    const cleared = page.waitForResponse(
      (response) => response.url().endsWith('/settings/business-details') && response.request().method() === 'PUT',
    );
    await form.getByRole('button', { name: 'Save business details', exact: true }).click();
    expect((await cleared).status()).toBe(200);
    expect(expectStatus(await api.get('/settings/business-details'), 200).support_phone).toBeNull();
    await page.close();
  });

  browserIt('a standard user reads them without a form; another account sees none of them', async () => {
    const { browser } = world;
    const page = await browser!.newPage();
    await browser!.signIn(page, standard);
    await page.goto(settings());
    const section = page.getByRole('region', { name: 'Business details', exact: true });
    await section.getByText('Analytical Engines Ltd', { exact: true }).waitFor();
    await expect(section.getByRole('form').count()).resolves.toBe(0);
    await world.browser!.screenFits(page, 'settings-business-details-standard');
    await page.close();

    const theirs = await browser!.newPage();
    await browser!.signIn(theirs, stranger);
    await theirs.goto(settings());
    const form = theirs.getByRole('form', { name: 'Business details', exact: true });
    await form.waitFor();
    await expect(form.getByLabel('Legal name', { exact: true }).inputValue()).resolves.toBe('');
    await expect(theirs.getByText('Analytical Engines Ltd').count()).resolves.toBe(0);
    await theirs.close();
  });
});
