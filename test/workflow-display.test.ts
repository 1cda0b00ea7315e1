import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { BILLING_CUSTOMER_EMAIL } from '../src/temporal/search-attributes';
import { subscriptionWorkflowId } from '../workflows/subscription-messages';
import { apiClient, createTestAccount, startTestApp, startTestWorker, type ApiClient, type TestApp } from './support/harness';
import { addPaymentMethod, cardBody, CARDS } from './support/payments';
import { createSubscription, expectStatus, quietRuntime, recurringPrice, unix } from './support/subscriptions';
import { waitUntil } from './support/webhooks';

/**
 * Workflows that explain themselves in the Temporal Web UI (issue 15 item 6): a static summary and
 * details from the start, and BillingCustomerEmail to find them from the customer's email. On the
 * suite's dev server, whose Web UI a headless Chromium screenshots (test-output/workflow.png).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let app: TestApp;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let api: ApiClient;

beforeAll(async () => {
  quietRuntime();
  const taskQueue = `workflow-display-${crypto.randomUUID()}`;
  app = await startTestApp({ taskQueue });
  worker = await startTestWorker(app.prisma, taskQueue);
  api = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { paymentPlans: true })).apiKey);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

it('a subscription workflow carries its summary, details and the customer email, found by a search on the email', async () => {
  const email = `Ada.${crypto.randomUUID().slice(0, 8)}@Example.com`;
  const customer = expectStatus(await api.post('/customers', { name: 'Acme', email }), 201);
  await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
  const price = await recurringPrice(api, { unitAmount: 2500 });
  const product = expectStatus(await api.get(`/prices/${price}`), 200).product as string;
  const productName = expectStatus(await api.get(`/products/${product}`), 200).name as string;
  const subscription = await createSubscription(api, { customer: customer.id, items: [{ price, quantity: 2 }], trial_days: 0, start_date: unix(Date.now()) });

  const workflowId = subscriptionWorkflowId(subscription.id);
  const handle = app.temporal.workflow.getHandle(workflowId);
  const description = await handle.describe();
  expect(await description.staticSummary()).toBe(`Acme: ${productName} 2 x $25.00 monthly, ${customer.id}`);
  const details = await description.staticDetails();
  expect(details).toContain(`**Customer**: Acme (${customer.id}), ${email}`);
  expect(details).toContain('**Bills**: \\$50.00 monthly before tax (charge_automatically)');
  expect(description.typedSearchAttributes.get(BILLING_CUSTOMER_EMAIL)).toBe(email.toLowerCase());

  const found = await waitUntil(async () => {
    const ids: string[] = [];
    for await (const execution of app.temporal.workflow.list({ query: `BillingCustomerEmail = "${email.toLowerCase()}"` })) ids.push(execution.workflowId);
    return ids.length > 0 ? ids : undefined;
  }, 60_000, 500);
  expect(found).toEqual([workflowId]);

  if (!fs.existsSync(CHROMIUM) || !process.env.TEMPORAL_UI_URL) {
    console.warn(`no Chromium at ${CHROMIUM} or no Web UI: the Web UI screenshot is skipped`);
    return;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    await page.goto(`${process.env.TEMPORAL_UI_URL}/namespaces/default/workflows/${encodeURIComponent(workflowId)}/${description.runId}/history`);
    // The summary is in the page once the workflow loads; the "User Metadata" panel shows it (its
    // open/closed state varies with the UI's layout), so the check is on the page, then the panel is opened for the picture.
    await page.getByText(`Acme: ${productName} 2 x $25.00 monthly`).first().waitFor({ state: 'attached', timeout: 60_000 });
    const summaryShown = page.getByText(`Acme: ${productName} 2 x $25.00 monthly`).filter({ visible: true });
    if ((await summaryShown.count()) === 0) await page.getByText('User Metadata').first().click({ timeout: 30_000 }).catch(() => undefined);
    const output = path.join(__dirname, '..', 'test-output');
    fs.mkdirSync(output, { recursive: true });
    await page.screenshot({ path: path.join(output, 'workflow.png') });
    console.log(`screenshot of the subscription's workflow page: ${path.join(output, 'workflow.png')}`);
  } finally {
    await browser.close();
  }
}, 180_000);

it('a payment plan workflow carries its summary and the customer email', async () => {
  const email = `grace.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const customer = expectStatus(await api.post('/customers', { name: 'Grace', email }), 201);
  const plan = expectStatus(
    await api.post('/payment-plans', { customer: customer.id, total_amount: 50000, currency: 'USD', installments_count: 5, interval: 'month' }),
    201,
  );
  const description = await app.temporal.workflow.getHandle(`payment-plan:${plan.id}`).describe();
  expect(await description.staticSummary()).toBe(`Grace: $500.00 in 5 installments monthly, ${customer.id}`);
  expect(description.typedSearchAttributes.get(BILLING_CUSTOMER_EMAIL)).toBe(email);
});
