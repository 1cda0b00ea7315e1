import type { Page } from 'playwright-core';
import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { createTestUser } from '../support/dashboard';
import { apiClient, createTestAccount } from '../support/harness';
import { createCustomer } from '../support/payments';
import {
  expectStatus,
  getPlan,
  startPlanWorld,
  terminalDepositWaiting,
  type PlanWorld,
} from '../support/payment-plans';

/**
 * The support staff's screen in Chromium: payment plans and the terminal payments not settled, resolved
 * and cancelled from the dashboard with the support command's rules (the API's refusal shown); a plan
 * listed on its customer's page; another account's plan and customer read "not found". Screenshots in
 * test-output/dashboard-payment-plans-*.png.
 */
const browserIt = browserTest('test/dashboard/dashboard-payment-plans.test.ts');

let world: PlanWorld;
let browser: DashboardBrowser | undefined;
let support: { email: string; password: string };

/** A $300.00 plan of `name` without a card, its deposit sent to a new terminal labelled `label`. */
const depositWaiting = (customerName: string, terminalLabel: string) =>
  terminalDepositWaiting(world.api, { customerName, terminalLabel, totalAmount: 30000 });

beforeAll(async () => {
  world = await startPlanWorld();
  support = await createTestUser(world.app.prisma, world.accountId, { role: 'standard', name: 'Sue Support' });
  if (haveChromium) browser = await openDashboardBrowser(world.app.baseUrl);
});
afterAll(async () => {
  await browser?.close();
  await world?.close();
});

describe('payment plans and terminal payments in the dashboard', () => {
  browserIt(
    'support resolves a lost deposit and cancels a waiting sale; refusals are shown',
    async () => {
      const lost = await depositWaiting('Ada Lovelace', 'Front desk');
      expectStatus(
        await world.api.post(`/test-helpers/terminals/${lost.terminal.id}/present-card`, {
          outcome: 'lost',
          processor_outcome: 'unknown',
        }),
        200,
      );
      const waiting = await depositWaiting('Alan Turing', 'Counter 2');

      const page: Page = await browser!.newPage();
      await browser!.signIn(page, support);
      await page.getByRole('link', { name: 'Payment plans', exact: true }).click();
      await page.getByRole('heading', { name: 'Terminal payments not settled', exact: true }).waitFor();
      // The plans' table below names its customers too: rows are looked for in the terminal payments' section.
      const terminal = page.getByRole('region', { name: 'Terminal payments not settled', exact: true });
      const lostRow = terminal.getByRole('row', { name: /Ada Lovelace/ });
      await lostRow.getByRole('cell', { name: 'resolving', exact: true }).waitFor();
      await terminal
        .getByRole('row', { name: /Alan Turing/ })
        .getByRole('cell', { name: 'waiting', exact: true })
        .waitFor();
      await browser!.screenFits(page, 'payment-plans');

      // A card id that is not the customer's: the API's refusal, in the dialog.
      await lostRow.getByRole('button', { name: 'Resolve', exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Approved (the customer paid)', { exact: true }).check();
      await dialog.getByLabel('A card of the customer', { exact: true }).check();
      await dialog.getByLabel('Payment method id', { exact: true }).fill('pm_notthecustomers');
      await browser!.screenFits(page, 'payment-plans-resolve');
      await dialog.getByRole('button', { name: 'Resolve', exact: true }).click();
      await expect(dialog.getByRole('alert').innerText()).resolves.toMatch(/pm_notthecustomers/);
      await dialog.getByLabel('Collected outside the service', { exact: true }).check();
      await dialog.getByRole('button', { name: 'Resolve', exact: true }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Payment ${lost.paymentId} resolved: succeeded.` })
        .waitFor();
      await terminal.getByRole('row', { name: /Ada Lovelace/ }).waitFor({ state: 'detached' });
      expect(await getPlan(world.api, lost.plan.id)).toMatchObject({ status: 'active', deposit: { status: 'paid' } });

      await terminal
        .getByRole('row', { name: /Alan Turing/ })
        .getByRole('button', { name: 'Cancel sale', exact: true })
        .click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel sale', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'The terminal was asked to cancel' }).waitFor();
      const cancelled = expectStatus(
        await world.api.get(`/payment-plans/${waiting.plan.id}/payments/${waiting.paymentId}`),
        200,
      );
      expect(cancelled.terminal).toMatchObject({ state: 'waiting', cancel_requested: true });

      // The plan's page: installments, payments, the workflow's link; cancelling it asks first.
      await terminal.getByRole('link', { name: 'Ada Lovelace', exact: true }).first().waitFor({ state: 'detached' });
      await page.goto(`${world.app.baseUrl}/dashboard/payment-plans/${lost.plan.id}`);
      await page.getByRole('heading', { name: lost.plan.id, exact: true }).waitFor();
      await page.getByRole('heading', { name: 'Installments', exact: true }).waitFor();
      await expect(
        page.getByRole('link', { name: 'Workflow in Temporal', exact: true }).getAttribute('href'),
      ).resolves.toContain(encodeURIComponent(`payment-plan:${lost.plan.id}`));
      await page.getByText('$100.00 of $300.00').first().waitFor();
      await browser!.screenFits(page, 'payment-plan');
      await page.getByRole('button', { name: 'Cancel plan', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel plan', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Canceled.' }).waitFor();
      expect((await getPlan(world.api, lost.plan.id)).status).toBe('canceled');

      // The customer's page lists the plan and links to it.
      await page.goto(`${world.app.baseUrl}/dashboard/customers/${lost.customer.id}`);
      const plans = page.getByRole('table', { name: 'Payment plans', exact: true });
      const planRow = plans.getByRole('row', { name: new RegExp(lost.plan.id) });
      await planRow.getByRole('cell', { name: 'canceled', exact: true }).waitFor();
      await expect(planRow.innerText()).resolves.toMatch(/\$300\.00[\s\S]*1 of 3/);
      await browser!.screenFits(page, 'customer-payment-plans');
      await plans.getByRole('link', { name: lost.plan.id, exact: true }).click();
      await page.getByRole('heading', { name: lost.plan.id, exact: true }).waitFor();

      // Another account's plan reads as one that does not exist.
      const other = await createTestAccount(world.app.prisma, { paymentPlans: true });
      const otherApi = apiClient(world.app.baseUrl, other.apiKey);
      const otherCustomer = await createCustomer(otherApi);
      const otherPlan = expectStatus(
        await otherApi.post('/payment-plans', {
          customer: otherCustomer.id,
          total_amount: 30000,
          currency: 'USD',
          installments_count: 3,
          interval: 'month',
        }),
        201,
      );
      await page.goto(`${world.app.baseUrl}/dashboard/payment-plans/${otherPlan.id}`);
      await page.getByRole('heading', { name: 'Payment plan not found', exact: true }).waitFor();
      // Its customer reads the same.
      await page.goto(`${world.app.baseUrl}/dashboard/customers/${otherCustomer.id}`);
      await page.getByRole('heading', { name: 'Customer not found', exact: true }).waitFor();
      expect(browser!.offSite).toEqual([]);
    },
    120_000,
  );
});
