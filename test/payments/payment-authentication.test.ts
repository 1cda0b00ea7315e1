import { browserTest, haveChromium, openDashboardBrowser, type DashboardBrowser } from '../support/browser';
import { paymentReconciliation } from '../../workflows/payment-reconciliation';
import { caughtMessages, emailsOfInvoice, startEmailWorld, waitUntil, type EmailWorld } from '../support/emails';
import { apiClient, createTestAccount, eventsOf, expectStatus, startTestApp } from '../support/harness';
import {
  addPaymentMethod,
  cardBody,
  CARDS,
  customerWithCard,
  gatewayCharges,
  simpleInvoice,
  wrappedGateways,
} from '../support/payments';
import { recordProcessorReport } from '../../src/use-cases/payment-reconciliation';
import type { ChargeResult } from '../../src/payments/gateway';
import { hostedPath, pageForm, pageText, postForm } from '../hosted-pages/pages';

// A card whose bank asks the customer to authenticate (3-D Secure): the charge answers requires_action, the
// invoice stays open, the customer is emailed once with the hosted invoice page, and authenticates there.
let world: EmailWorld;
let browser: DashboardBrowser | undefined;
const browserIt = browserTest('test/payments/payment-authentication.test.ts');

beforeAll(async () => {
  world = await startEmailWorld('Authenticated Co');
  if (haveChromium) browser = await openDashboardBrowser(world.app.baseUrl, { screens: 'hosted' });
});

afterAll(async () => {
  await browser?.close();
  await world.close();
});

async function eventsOfInvoice(type: string, invoiceId: string) {
  return (await eventsOf(world.app.prisma, world.accountId, type)).filter(
    (event) => (event.data as { id: string }).id === invoiceId,
  );
}

function reconcile() {
  return world.app.temporal.workflow.execute(paymentReconciliation, {
    taskQueue: world.taskQueue,
    workflowId: `payment-reconciliation-test-${crypto.randomUUID()}`,
    args: [{ pendingOlderThanMs: 0 }],
  });
}

it('a charge that requires authentication leaves the invoice open, emails the customer once, and is paid once authenticated on the hosted page', async () => {
  const { api, app, accountId } = world;
  const to = 'ada+authenticate@example.com';
  const customer = expectStatus(await api.post('/customers', { name: 'Ada', email: to }), 201, 'customer');
  await addPaymentMethod(api, customer.id, cardBody(CARDS.authenticationRequired));
  const invoice = await simpleInvoice(api, customer.id, 4200);
  const charged = await gatewayCharges(app.prisma, accountId);

  // Neither paid nor failed: the attempt is in flight, waiting for the customer.
  expect(expectStatus(await api.put(`/invoices/${invoice.id}`), 200)).toMatchObject({
    status: 'open',
    amount_paid: 0,
    attempt_count: 1,
  });
  const [attempt] = expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data;
  expect(attempt).toMatchObject({ status: 'pending', failure_code: 'authentication_required', amount: 4200 });
  expect((await world.other.get(`/transactions/${attempt.id}`)).status).toBe(404);
  // Paying again asks about the attempt waiting and makes none beside it; voiding is refused while it waits.
  expect(expectStatus(await api.put(`/invoices/${invoice.id}`), 200).status).toBe('open');
  expect(expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data).toHaveLength(1);
  expect((await api.delete(`/invoices/${invoice.id}`)).status).toBe(409);
  expect(await gatewayCharges(app.prisma, accountId)).toBe(charged + 1);
  expect(await eventsOfInvoice('invoice.payment_failed', invoice.id)).toHaveLength(0);
  // The reconciliation asks the processor too: still waiting, nothing new recorded.
  await reconcile();
  expect(expectStatus(await api.get(`/transactions/${attempt.id}`), 200).status).toBe('pending');

  // One email, with the hosted invoice page's link, however often the processor is asked.
  const [email] = await caughtMessages(api, to);
  const open = expectStatus(await api.get(`/invoices/${invoice.id}`), 200);
  expect(email).toMatchObject({
    kind: 'payment_action_required',
    subject: `Confirm your payment for invoice ${open.number} from Authenticated Co`,
  });
  expect([...email.html.matchAll(/<a href="([^"]+)"/g)].map((match) => match[1])).toEqual([open.hosted_invoice_url]);
  expect(await eventsOfInvoice('invoice.payment_action_required', invoice.id)).toHaveLength(1);
  expect(await emailsOfInvoice(app.prisma, invoice.id)).toHaveLength(1);

  // The page asks for the authentication instead of a card.
  const path = hostedPath(open);
  const page = await pageText(await fetch(`${app.baseUrl}${path}`));
  expect(page).toContain('Authenticate your payment');
  expect(page).toContain('>Authenticate payment</button>');
  expect(page).not.toContain('name="number"');
  const form = await pageForm(app.baseUrl, path);
  expect((await postForm(app.baseUrl, `${path}/authenticate`, { csrf: 'forged' })).status).toBe(403);
  expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200).status).toBe('open');

  const authenticated = await postForm(app.baseUrl, `${path}/authenticate`, form);
  expect(authenticated.status).toBe(303);
  expect(authenticated.headers.get('location')).toBe(path);
  expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
    status: 'paid',
    amount_paid: 4200,
    attempt_count: 1,
  });
  expect(expectStatus(await api.get(`/transactions/${attempt.id}`), 200)).toMatchObject({ status: 'succeeded' });
  expect(expectStatus(await api.get(`/transactions/${attempt.id}`), 200).failure_code ?? null).toBeNull();
  // A second click finds nothing waiting: nothing more is charged or recorded.
  expect((await postForm(app.baseUrl, `${path}/authenticate`, form)).status).toBe(303);
  expect(await gatewayCharges(app.prisma, accountId)).toBe(charged + 1);
  expect(await eventsOfInvoice('invoice.payment_succeeded', invoice.id)).toHaveLength(1);
  expect(await eventsOfInvoice('invoice.payment_action_required', invoice.id)).toHaveLength(1);
  expect(expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data).toHaveLength(1);
  await waitUntil(async () => (await emailsOfInvoice(app.prisma, invoice.id)).length === 2);
  expect((await emailsOfInvoice(app.prisma, invoice.id)).map((row) => row.kind)).toEqual([
    'payment_action_required',
    'receipt',
  ]);
});

it("a processor that authenticates on its own page (Stripe's next_action): the hosted page links there, and the processor's report settles the payment", async () => {
  const actionUrl = 'https://hooks.stripe.com/3d_secure_2/hosted?payment_intent=pi_test';
  let authenticated = false;
  const answer = (result: ChargeResult | null): ChargeResult | null =>
    result?.status === 'succeeded' && !authenticated
      ? { status: 'requires_action', chargeId: result.chargeId, actionUrl }
      : result;
  // The simulator's charges, answered as a processor with its own authentication page would (no confirmAction).
  const gateways = wrappedGateways(world.app.prisma, (real) => ({
    charge: async (request) => answer(await real.charge(request))!,
    retrieveCharge: async (request) => answer(await real.retrieveCharge(request)),
  }));
  const app = await startTestApp({ gateways });
  try {
    const account = await createTestAccount(app.prisma, { name: 'Own Page Co' });
    const api = apiClient(app.baseUrl, account.apiKey);
    const { customer } = await customerWithCard(api);
    const invoice = await simpleInvoice(api, customer.id, 1500);
    const open = expectStatus(await api.put(`/invoices/${invoice.id}`), 200);
    expect(open).toMatchObject({ status: 'open', amount_paid: 0 });
    const [attempt] = expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data;
    expect(attempt).toMatchObject({ status: 'pending', failure_code: 'authentication_required' });

    const path = hostedPath(open);
    const page = await pageText(await fetch(`${app.baseUrl}${path}`));
    expect(page).toContain(`<a href="${actionUrl.replace('&', '&amp;')}">Authenticate payment</a>`);
    expect(page).not.toContain('name="number"');

    // The customer authenticated there: the processor's report (its webhook) settles the payment, once.
    authenticated = true;
    const entry = await app.prisma.transaction.findUniqueOrThrow({ where: { id: attempt.id } });
    const charged = await gateways.gatewayFor(account.accountId);
    const result = (await charged.retrieveCharge({ idempotencyKey: entry.gatewayKey! }))!;
    const report = { kind: 'charge' as const, accountId: account.accountId, idempotencyKey: entry.gatewayKey!, result };
    expect(await recordProcessorReport(app.prisma, gateways, report)).toBe('recorded');
    expect(await recordProcessorReport(app.prisma, gateways, report)).toBe('ignored');
    expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
      status: 'paid',
      amount_paid: 1500,
    });
    expect(await pageText(await fetch(`${app.baseUrl}${path}`))).not.toContain('Authenticate your payment');
  } finally {
    await app.close();
  }
});

browserIt(
  'in a browser: the page asks for the authentication, and the button pays the invoice (axe, screenshots)',
  async () => {
    const { api } = world;
    const customer = expectStatus(await api.post('/customers', { name: 'Ada', email: 'ada+browser@example.com' }), 201);
    await addPaymentMethod(api, customer.id, cardBody(CARDS.authenticationRequired));
    const invoice = await simpleInvoice(api, customer.id, 2900);
    const open = expectStatus(await api.put(`/invoices/${invoice.id}`), 200);
    const page = await browser!.newPage();
    await page.goto(`${world.app.baseUrl}${hostedPath(open)}`);
    await page.getByRole('heading', { name: 'Authenticate your payment', exact: true }).waitFor();
    expect(await page.getByLabel('Card number', { exact: true }).count()).toBe(0);
    await browser!.screenFits(page, 'invoice-authenticate');
    await page.getByRole('button', { name: 'Authenticate payment', exact: true }).dblclick();
    await page.getByRole('link', { name: 'Download the receipt (PDF)', exact: true }).waitFor();
    await browser!.screen(page, 'invoice-authenticated');
    expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
      status: 'paid',
      amount_paid: 2900,
    });
    expect(expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data).toHaveLength(1);
    expect(browser!.offSite).toEqual([]);
  },
);
