import type { Page } from 'playwright-core';
import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { createTestAccount, expectStatus } from '../support/harness';
import { createTestUser } from '../support/dashboard';
import { customerWithCard, simpleInvoice } from '../support/payments';
import {
  createSubscription,
  namedMonthlyPrice,
  startSubscriptionWorld,
  unix,
  type SubscriptionWorld,
} from '../support/subscriptions';

/**
 * Names, not ids, in Chromium (docs/api.md, "Names on list rows"): subscriptions titled by their products and
 * listed with their customers' names, a subscription's discount and what it takes off, the price picker by
 * product and amount, Payments by customer and invoice number, and the lists filtered by picking a customer
 * (and an invoice by its number) instead of pasting an id. Another account's subscription reads as not found.
 */
const browserIt = browserTest('test/dashboard/dashboard-names.test.ts');

let world: SubscriptionWorld;
let browser: DashboardBrowser | undefined;
let user: { email: string; password: string };
let stranger: { email: string; password: string };
let ada: string;
let grace: string;
let proSubscription: string;
let paidNumber: string;

async function productPrice(name: string, unitAmount: number, description?: string): Promise<string> {
  const price = await namedMonthlyPrice(world.api, name, unitAmount);
  if (description) expectStatus(await world.api.patch(`/prices/${price}/inactive`, { description }), 200);
  return price;
}

beforeAll(async () => {
  world = await startSubscriptionWorld();
  user = await createTestUser(world.app.prisma, world.accountId, { role: 'developer', name: 'Nina Names' });
  const other = await createTestAccount(world.app.prisma, { name: 'Elsewhere' });
  stranger = await createTestUser(world.app.prisma, other.accountId, { role: 'developer', name: 'Sid Stranger' });

  const now = unix(await world.env.currentTimeMs());
  ada = (await customerWithCard(world.api)).customer.id;
  expectStatus(await world.api.patch(`/customers/${ada}`, { name: 'Ada Lovelace', email: 'ada@example.com' }), 200);
  grace = (await customerWithCard(world.api)).customer.id;
  expectStatus(await world.api.patch(`/customers/${grace}`, { name: 'Grace Hopper', email: 'grace@example.com' }), 200);

  const quarter = expectStatus(
    await world.api.post('/coupons', { name: 'Launch', percent_off: 25, duration: 'forever' }),
    201,
  );
  const tenth = expectStatus(
    await world.api.post('/coupons', { name: 'Loyalty', percent_off: 10, duration: 'forever' }),
    201,
  );
  expectStatus(await world.api.patch(`/customers/${grace}`, { coupon: tenth.id }), 200);

  proSubscription = (
    await createSubscription(world.api, {
      customer: ada,
      items: [{ price: await productPrice('Analytical Engine Pro', 4900), quantity: 2 }],
      trial_days: 0,
      start_date: now,
      coupon: quarter.id,
    })
  ).id;
  await createSubscription(world.api, {
    customer: grace,
    items: [{ price: await productPrice('Difference Engine', 1500, 'Founders'), quantity: 1 }],
    trial_days: 0,
    start_date: now,
  });
  const invoice = await simpleInvoice(world.api, grace, 3100);
  paidNumber = expectStatus(await world.api.put(`/invoices/${invoice.id}`), 200, 'pay').number;
  if (haveChromium) browser = await openDashboardBrowser(world.app.baseUrl);
});
afterAll(async () => {
  await browser?.close();
  await world?.close();
});

/** Picks `name` in the customer picker labelled `label`, after typing `typed`. */
async function pickCustomer(page: Page, label: string, typed: string, name: string) {
  await page.getByRole('combobox', { name: label, exact: true }).fill(typed);
  await page.getByRole('option', { name: new RegExp(`^${name}`) }).click();
  await page.getByRole('button', { name: `Clear ${label}`, exact: true }).waitFor();
}

describe('names, not ids, in the dashboard', () => {
  browserIt('lists subscriptions by product and customer, filtered by picking a customer', async () => {
    const page = await browser!.newPage();
    await browser!.signIn(page, user);
    await page.goto(`${world.app.baseUrl}/dashboard/subscriptions`);
    const pro = page.getByRole('link', { name: 'Analytical Engine Pro', exact: true });
    await pro.waitFor();
    await page.getByRole('link', { name: 'Difference Engine (Founders)', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Ada Lovelace', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Grace Hopper', exact: true }).waitFor();
    // No link is named by an id any more; the ids stay beneath as text.
    const linkNames = await page.getByRole('main').getByRole('link').allInnerTexts();
    expect(linkNames.filter((name) => /^(sub|cus)_/.test(name))).toEqual([]);
    await expect(page.getByText(proSubscription, { exact: true }).count()).resolves.toBe(1);
    await browser!.screenFits(page, 'names-subscriptions');

    await page.getByRole('combobox', { name: 'Customer', exact: true }).fill('gra');
    await page.getByRole('listbox', { name: 'Customer: matches', exact: true }).waitFor();
    await browser!.screen(page, 'names-customer-picker');
    await page.getByRole('option', { name: /^Grace Hopper/ }).click();
    await page.waitForURL(`**/dashboard/subscriptions?customer=${grace}`);
    await pro.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Difference Engine (Founders)', exact: true }).waitFor();
    await browser!.screenFits(page, 'names-subscriptions-filtered');
    await page.getByRole('button', { name: 'Clear Customer', exact: true }).click();
    await pro.waitFor();
    await page.close();
  });

  browserIt('titles a subscription by what it sells and shows its discount and what it takes off', async () => {
    const page = await browser!.newPage();
    await browser!.signIn(page, user);
    await page.goto(`${world.app.baseUrl}/dashboard/subscriptions/${proSubscription}`);
    await page.getByRole('heading', { name: 'Analytical Engine Pro', level: 1, exact: true }).waitFor();
    const facts = page.locator('dl.facts');
    await expect(facts.getByRole('link', { name: 'Ada Lovelace', exact: true }).count()).resolves.toBe(1);
    const discount = facts.locator('dt:text-is("Discount") + dd');
    await expect(discount.innerText()).resolves.toMatch(
      /^Launch: 25% off, forever\s+Takes \$24\.50 off \$98\.00, on every invoice$/,
    );
    await browser!.screenFits(page, 'names-subscription');

    // The other subscription has no discount of its own: its customer's applies, and says so.
    await page.goto(`${world.app.baseUrl}/dashboard/subscriptions?customer=${grace}`);
    await page.getByRole('link', { name: 'Difference Engine (Founders)', exact: true }).click();
    await page.getByRole('heading', { name: 'Difference Engine (Founders)', level: 1, exact: true }).waitFor();
    await expect(page.locator('dl.facts dt:text-is("Discount") + dd').innerText()).resolves.toMatch(
      /^Loyalty: 10% off, forever \(the customer’s\)\s+Takes \$1\.50 off \$15\.00, on every invoice$/,
    );
    await page.close();
  });

  browserIt('offers prices by product and amount in the new subscription dialog', async () => {
    const page = await browser!.newPage();
    await browser!.signIn(page, user);
    await page.goto(`${world.app.baseUrl}/dashboard/customers/${ada}`);
    await page.getByRole('heading', { name: 'Ada Lovelace', exact: true }).waitFor();
    await page.getByRole('button', { name: 'New subscription', exact: true }).click();
    const picker = page.getByRole('combobox', { name: 'Price', exact: true });
    await picker.locator('option', { hasText: 'Analytical Engine Pro' }).waitFor({ state: 'attached' });
    const options = await picker.locator('option').allInnerTexts();
    expect(options).toEqual(
      expect.arrayContaining([
        'Analytical Engine Pro · $49.00 per month',
        'Difference Engine (Founders) · $15.00 per month',
      ]),
    );
    expect(options.filter((option) => option.includes('price_'))).toEqual([]);
    await browser!.screen(page, 'names-price-picker');
    await page.close();
  });

  browserIt(
    'lists payments by customer and invoice number, filtered by a picked customer and a typed number',
    async () => {
      const page = await browser!.newPage();
      await browser!.signIn(page, user);
      await page.goto(`${world.app.baseUrl}/dashboard/payments`);
      await page.getByRole('link', { name: `Invoice ${paidNumber}`, exact: true }).waitFor();
      await expect(page.getByRole('link', { name: 'Grace Hopper', exact: true }).count()).resolves.toBeGreaterThan(0);
      await browser!.screenFits(page, 'names-payments');

      await page.getByLabel('Invoice number', { exact: true }).fill('INV-999999');
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      await expect(page.getByRole('alert').innerText()).resolves.toBe('No invoice INV-999999 in this account.');
      await page.getByLabel('Invoice number', { exact: true }).fill(paidNumber.toLowerCase());
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      await page.waitForURL('**/dashboard/payments?invoice=*');
      await page.getByRole('button', { name: 'Clear invoice', exact: true }).waitFor();
      // Runs in the page, where the DOM is; the CSP refuses a string to evaluate.
      await page.waitForFunction(
        () =>
          (
            globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } }
          ).document.querySelectorAll('tbody tr').length === 1,
      );
      await page.getByRole('link', { name: `Invoice ${paidNumber}`, exact: true }).waitFor();
      await browser!.screenFits(page, 'names-payments-invoice');
      await page.getByRole('button', { name: 'Clear invoice', exact: true }).click();
      await page.getByLabel('Invoice number', { exact: true }).waitFor();

      await pickCustomer(page, 'Customer', 'ada', 'Ada Lovelace');
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      await page.waitForURL(`**/dashboard/payments?customer=${ada}`);
      await page.getByRole('link', { name: `Invoice ${paidNumber}`, exact: true }).waitFor({ state: 'detached' });
      const customers = await page.locator('tbody tr td:nth-child(5)').allInnerTexts();
      expect(new Set(customers)).toEqual(new Set(['Ada Lovelace']));
      await page.close();
    },
  );

  browserIt('filters invoices by a picked customer', async () => {
    const page = await browser!.newPage();
    await browser!.signIn(page, user);
    await page.goto(`${world.app.baseUrl}/dashboard/invoices`);
    await page.getByRole('link', { name: paidNumber, exact: true }).waitFor();
    await pickCustomer(page, 'Customer', 'Ada', 'Ada Lovelace');
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.waitForURL(`**/dashboard/invoices?customer=${ada}`);
    await page.getByRole('link', { name: paidNumber, exact: true }).waitFor({ state: 'detached' });
    const customers = await page.locator('tbody tr td:nth-child(5)').allInnerTexts();
    expect(customers.length).toBeGreaterThan(0);
    expect(new Set(customers)).toEqual(new Set(['Ada Lovelace']));
    await browser!.screenFits(page, 'names-invoices-filtered');
    await page.close();
  });

  browserIt("shows another account's subscription as not found", async () => {
    const page = await browser!.newPage();
    await browser!.signIn(page, stranger);
    await page.goto(`${world.app.baseUrl}/dashboard/subscriptions/${proSubscription}`);
    await page.getByRole('heading', { name: 'Subscription not found', exact: true }).waitFor();
    await expect(page.getByText('Analytical Engine Pro').count()).resolves.toBe(0);
    await page.goto(`${world.app.baseUrl}/dashboard/subscriptions?customer=${ada}`);
    await page.getByText('Unknown customer', { exact: true }).waitFor();
    await page.getByText('No subscriptions yet.', { exact: true }).waitFor();
    await expect(page.getByText('Ada Lovelace').count()).resolves.toBe(0);
    await page.close();
  });
});
