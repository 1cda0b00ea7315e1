import { createPrisma } from '../../src/db/prisma';
import { sqlTransaction } from '../../src/db/sql-transaction';
import { openPending } from '../../src/transactions/ledger';
import { GatewayUnavailableError } from '../../src/payments/gateway';
import {
  paymentReconciliation,
  type PaymentReconciliationInput,
  type PaymentReconciliationResult,
} from '../../workflows/payment-reconciliation';
import {
  apiClient,
  createTestAccount,
  eventsOf,
  expectStatus,
  quietRuntime,
  startTestApp,
  startTestWorker,
  type ApiClient,
  type TestApp,
} from '../support/harness';
import { customerWithCard, gatewayCharges, simpleInvoice, simulatorFor, wrappedGateways } from '../support/payments';
import { recordProcessorReport } from '../../src/use-cases/payment-reconciliation';
import { recurringPrice } from '../support/subscriptions';
import { eventually } from '../support/payment-plans';
import { registeredGateways } from '../../src/gateway-registrations';

// The API's gateway charges and then loses the answer (a timeout after the processor took the request):
// the adapter says `unknown`. The worker's gateway is the real simulated one, which the reconciliation asks.
let app: TestApp;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let api: ApiClient;
let other: ApiClient;
let accountId: string;
const taskQueue = `reconciliation-${crypto.randomUUID()}`;
let losing = true;
let losingRefunds = false;
const gatewayDb = createPrisma(process.env.DATABASE_URL!, 2);

beforeAll(async () => {
  quietRuntime();
  app = await startTestApp({
    taskQueue,
    gateways: wrappedGateways(gatewayDb, (real) => ({
      async charge(request) {
        const answered = await real.charge(request);
        return losing ? { status: 'unknown', reason: 'timeout after the request was sent' } : answered;
      },
      // The processor is unreachable from the API meanwhile: asking it about the key fails too.
      retrieveCharge: (request) =>
        losing ? Promise.reject(new GatewayUnavailableError('simulated', 'down')) : real.retrieveCharge(request),
      async refund(request) {
        const answered = await real.refund(request);
        return losingRefunds ? { status: 'unknown', reason: 'timeout after the request was sent' } : answered;
      },
      retrieveRefund: (request) =>
        losingRefunds ? Promise.reject(new GatewayUnavailableError('simulated', 'down')) : real.retrieveRefund(request),
    })),
  });
  worker = await startTestWorker(app.prisma, taskQueue);
  const account = await createTestAccount(app.prisma, { name: 'Reconciled Co' });
  accountId = account.accountId;
  api = apiClient(app.baseUrl, account.apiKey);
  other = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { name: 'Other Co' })).apiKey);
});

afterAll(async () => {
  await worker.stop();
  await app.close();
  await gatewayDb.$disconnect();
});

/** One pass of the reconciliation, as its schedule starts it, on this file's worker. */
function reconcile(input: PaymentReconciliationInput = {}): Promise<PaymentReconciliationResult> {
  return app.temporal.workflow.execute(paymentReconciliation, {
    taskQueue,
    workflowId: `payment-reconciliation-test-${crypto.randomUUID()}`,
    args: [input],
  });
}

it('a charge whose answer was lost stays unknown (never failed, never retried under a new key) until the reconciliation asks the processor', async () => {
  const { customer } = await customerWithCard(api);
  const invoice = await simpleInvoice(api, customer.id, 4200);
  const before = await gatewayCharges(app.prisma, accountId);

  const answered = expectStatus(await api.put(`/invoices/${invoice.id}`), 200);
  expect(answered).toMatchObject({ status: 'open', amount_paid: 0, attempt_count: 1 });
  const [attempt] = expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data;
  expect(attempt).toMatchObject({ type: 'payment', status: 'unknown', amount: 4200 });
  expect(expectStatus(await api.get(`/transactions?status=unknown`), 200).data.map((t: any) => t.id)).toContain(
    attempt.id,
  );
  // Another account sees none of it.
  expect((await other.get(`/transactions/${attempt.id}`)).status).toBe(404);
  // Paying again while the outcome is unknown makes no new attempt: the one in flight is asked about, and a
  // processor that cannot answer is a retryable 502.
  const again = await api.put(`/invoices/${invoice.id}`);
  expect(again.status).toBe(502);
  expect(again.body.error.code).toBe('gateway_unavailable');
  expect(expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data).toHaveLength(1);
  expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
  // Voiding is refused while the outcome is unknown: the money may have moved.
  expect((await api.delete(`/invoices/${invoice.id}`)).status).toBe(409);

  const result = await reconcile();
  expect(result.settled).toBeGreaterThanOrEqual(1);
  expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
    status: 'paid',
    amount_paid: 4200,
    attempt_count: 1,
  });
  expect(expectStatus(await api.get(`/transactions/${attempt.id}`), 200)).toMatchObject({ status: 'succeeded' });
  expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
  const paid = (await eventsOf(app.prisma, accountId, 'invoice.payment_succeeded')).filter(
    (event) => (event.data as { id: string }).id === invoice.id,
  );
  expect(paid).toHaveLength(1);
});

it("a subscription's first charge, opened with the creation, whose answer was lost: finished under its key by the workflow's attempt 1, one charge", async () => {
  const { customer } = await customerWithCard(api);
  const price = await recurringPrice(api, { unitAmount: 3100 });
  const before = await gatewayCharges(app.prisma, accountId);
  const subscription = await api.post('/subscriptions', {
    customer: customer.id,
    items: [{ price, quantity: 1 }],
    trial_days: 0,
    start_date: Math.floor(Date.now() / 1000),
  });
  expectStatus(subscription, 201, 'POST /subscriptions');
  const invoiceId: string = subscription.body.latest_invoice;
  // The API's attempt (opened in the creation's transaction) is the invoice's only one, whoever finished it.
  const paid = await eventually(
    () => api.get(`/invoices/${invoiceId}`),
    (answer) => answer.status === 200 && answer.body.status === 'paid',
  );
  expect(paid.body).toMatchObject({ amount_paid: 3100, attempt_count: 1 });
  const attempts = expectStatus(await api.get(`/invoices/${invoiceId}/transactions`), 200).data;
  expect(attempts).toEqual([expect.objectContaining({ type: 'payment', status: 'succeeded', amount: 3100 })]);
  expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
  const succeeded = (await eventsOf(app.prisma, accountId, 'invoice.payment_succeeded')).filter(
    (event) => (event.data as { id: string }).id === invoiceId,
  );
  expect(succeeded).toHaveLength(1);
  expect((await other.get(`/invoices/${invoiceId}`)).status).toBe(404);
  expect((await other.get(`/subscriptions/${subscription.body.id}`)).status).toBe(404);
});

it('a charge the processor never received is sent again under its own key, once', async () => {
  losing = false;
  const { customer } = await customerWithCard(api);
  const invoice = await simpleInvoice(api, customer.id, 1300);
  const before = await gatewayCharges(app.prisma, accountId);
  // The attempt is opened and committed, then the process dies before the processor is called.
  const methods = expectStatus(await api.get(`/customers/${customer.id}/payment-methods`), 200).data;
  const entry = await sqlTransaction(app.prisma, (tx) =>
    openPending(tx, {
      accountId,
      type: 'payment',
      amount: 1300n,
      currency: 'USD',
      customerId: customer.id,
      invoiceId: invoice.id,
      paymentMethodId: methods[0].id,
      attempt: 1,
      gatewayKey: `invoice:${invoice.id}:payment:1`,
      description: 'Payment of an invoice whose worker died',
    }),
  );
  await app.prisma.invoice.update({ where: { id: invoice.id }, data: { attemptCount: 1 } });
  // An attempt that cannot be finished (its method gone) holds up none of the others.
  const stuck = await sqlTransaction(app.prisma, (tx) =>
    openPending(tx, {
      accountId,
      type: 'payment',
      amount: 700n,
      currency: 'USD',
      customerId: customer.id,
      invoiceId: invoice.id,
      paymentMethodId: 'pm_gone',
      gatewayKey: `invoice:${invoice.id}:payment:stuck`,
      description: 'Payment whose method is gone',
    }),
  );
  await reconcile({ pendingOlderThanMs: 0 });
  expect(expectStatus(await api.get(`/transactions/${stuck.id}`), 200)).toMatchObject({ status: 'pending' });
  expect(expectStatus(await api.get(`/transactions/${entry.id}`), 200)).toMatchObject({ status: 'succeeded' });
  expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({ status: 'paid' });
  expect(await gatewayCharges(app.prisma, accountId)).toBe(before + 1);
});

it("the processor's own report settles an attempt in flight once, and a key the service never sent is ignored", async () => {
  losing = true;
  const { customer } = await customerWithCard(api);
  const invoice = await simpleInvoice(api, customer.id, 2500);
  expectStatus(await api.put(`/invoices/${invoice.id}`), 200);
  const [attempt] = expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data;
  expect(attempt.status).toBe('unknown');
  const charged = await (
    await simulatorFor(app.prisma, accountId)
  ).retrieveCharge({
    idempotencyKey: `invoice:${invoice.id}:payment:1`,
  });
  expect(charged).toMatchObject({ status: 'succeeded' });
  const report = {
    kind: 'charge' as const,
    accountId,
    idempotencyKey: `invoice:${invoice.id}:payment:1`,
    result: charged!,
  };
  // Another account's report under this key finds nothing of its own.
  const otherAccount = await createTestAccount(app.prisma, { name: 'Reporter Co' });
  expect(
    await recordProcessorReport(app.prisma, registeredGateways(app.prisma), {
      ...report,
      accountId: otherAccount.accountId,
    }),
  ).toBe('ignored');
  expect(await recordProcessorReport(app.prisma, registeredGateways(app.prisma), report)).toBe('recorded');
  expect(await recordProcessorReport(app.prisma, registeredGateways(app.prisma), report)).toBe('ignored');
  expect(
    await recordProcessorReport(app.prisma, registeredGateways(app.prisma), {
      ...report,
      idempotencyKey: 'invoice:not-ours:payment:1',
    }),
  ).toBe('ignored');
  expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
    status: 'paid',
    amount_paid: 2500,
  });
  expect(expectStatus(await api.get(`/transactions/${attempt.id}`), 200)).toMatchObject({ status: 'succeeded' });
});

it('a refund whose answer was lost stays unknown (a retryable 502) until the reconciliation asks the processor, once', async () => {
  losing = false;
  const { customer } = await customerWithCard(api);
  const invoice = await simpleInvoice(api, customer.id, 5000);
  expect(expectStatus(await api.put(`/invoices/${invoice.id}`), 200).status).toBe('paid');
  const before = await gatewayCharges(app.prisma, accountId, 'refund');

  losingRefunds = true;
  const lost = await api.post(`/invoices/${invoice.id}/refund`, { amount: 1000 });
  expect(lost.status).toBe(502);
  expect(lost.body.error.code).toBe('gateway_unavailable');
  const refund = expectStatus(await api.get(`/invoices/${invoice.id}/transactions`), 200).data.find(
    (entry: { type: string }) => entry.type === 'refund',
  );
  expect(refund).toMatchObject({ status: 'unknown', amount: -1000 });
  expect((await other.get(`/transactions/${refund.id}`)).status).toBe(404);
  expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200).amount_refunded).toBe(0);

  losingRefunds = false;
  await reconcile();
  expect(expectStatus(await api.get(`/transactions/${refund.id}`), 200)).toMatchObject({ status: 'succeeded' });
  expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200).amount_refunded).toBe(1000);
  expect(await gatewayCharges(app.prisma, accountId, 'refund')).toBe(before + 1);
  // Settled once: a second pass and a later request find nothing in flight and move nothing more.
  await reconcile();
  expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200).amount_refunded).toBe(1000);
  expect(await gatewayCharges(app.prisma, accountId, 'refund')).toBe(before + 1);
});

it("the processor's report of a credit note's refund settles it: a refused refund voids its credit note, once", async () => {
  losing = false;
  const { customer } = await customerWithCard(api);
  const invoice = await simpleInvoice(api, customer.id, 3000);
  expectStatus(await api.put(`/invoices/${invoice.id}`), 200);
  losingRefunds = true;
  const lost = await api.post('/credit-notes', {
    invoice: invoice.id,
    amount: 800,
    reason: 'duplicate',
    refund_to: 'card',
  });
  losingRefunds = false;
  expect(lost.status).toBe(502);
  const [note] = expectStatus(await api.get(`/credit-notes?invoice=${invoice.id}`), 200).data;
  expect(note).toMatchObject({ status: 'issued', amount: 800 });
  const entry = await app.prisma.transaction.findUniqueOrThrow({ where: { id: note.transaction } });
  expect(entry.status).toBe('unknown');

  const report = {
    kind: 'refund' as const,
    accountId,
    idempotencyKey: entry.gatewayKey!,
    result: {
      status: 'failed' as const,
      refundId: 're_refused',
      failureCode: 'charge_disputed',
      failureMessage: 'The charge is disputed.',
    },
  };
  const gateways = registeredGateways(app.prisma);
  const otherAccount = await createTestAccount(app.prisma, { name: 'Refund Reporter Co' });
  expect(await recordProcessorReport(app.prisma, gateways, { ...report, accountId: otherAccount.accountId })).toBe(
    'ignored',
  );
  expect(await recordProcessorReport(app.prisma, gateways, report)).toBe('recorded');
  expect(await recordProcessorReport(app.prisma, gateways, report)).toBe('ignored');
  expect(expectStatus(await api.get(`/credit-notes/${note.id}`), 200)).toMatchObject({ status: 'void' });
  expect(expectStatus(await api.get(`/transactions/${entry.id}`), 200)).toMatchObject({
    status: 'failed',
    failure_code: 'charge_disputed',
  });
  expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
    amount_refunded: 0,
    post_payment_credit_notes_amount: 0,
  });
  const voided = (await eventsOf(app.prisma, accountId, 'credit_note.voided')).filter(
    (event) => (event.data as { id: string }).id === note.id,
  );
  expect(voided).toHaveLength(1);
});
