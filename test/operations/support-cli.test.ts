import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/config';
import {
  apiClient,
  createTestAccount,
  startTestWorker,
  type ApiClient,
  type TestApp,
  startWorkerApp,
} from '../support/harness';
import { addPaymentMethod, cardBody, CARDS, createCustomer } from '../support/payments';
import { createTerminal, eventually, expectStatus, getPlan } from '../support/payment-plans';
import { recurringPrice } from '../support/subscriptions';
import { advanceClock } from '../support/clocks';
import { EXPIRY, hostedPath, pageForm, postForm } from '../hosted-pages/pages';

// `npm run support` against the suite's Temporal dev server and database, on payments really stuck on a terminal.

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

function support(args: string[]) {
  return run(tsx, [path.join(projectRoot, 'src', 'cli', 'support.ts'), ...args], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS },
  });
}

let app: TestApp;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let api: ApiClient;
let accountId: string;

beforeAll(async () => {
  ({ app, worker, api, accountId } = await startWorkerApp('support-cli', { paymentPlans: true }));
});
afterAll(async () => {
  await worker?.stop();
  await app?.close();
});

async function stuckDeposit() {
  const customer = await createCustomer(api, 'Ada Lovelace');
  const terminal = await createTerminal(api);
  const plan = expectStatus(
    await api.post('/payment-plans', {
      customer: customer.id,
      total_amount: 500,
      currency: 'USD',
      installments_count: 5,
      interval: 'month',
    }),
    201,
  );
  const sent = expectStatus(
    await api.post(`/payment-plans/${plan.id}/deposit/terminal`, { terminal: terminal.id }),
    202,
  );
  return { terminal, plan, paymentId: sent.deposit.attempt.payment as string };
}

describe('npm run support', () => {
  it('refuses bad flags and commands with a message naming them, exit 2', async () => {
    const unknown = await support(['terminal:stuck', '--minuts', '5']).catch((error) => error);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^Unknown option '--minuts'\.\nUsage: npm run support/);
    const missing = await support(['terminal:stuck', '--minutes']).catch((error) => error);
    expect(missing).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Option '--minutes <value>' argument missing"),
    });
    const bad = await support(['terminal:stuck', '--minutes', 'ten']).catch((error) => error);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--minutes must be an integer >= 0') });
    expect(await support(['terminal:stcuk']).catch((error) => error)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Unknown command "terminal:stcuk"'),
    });
  });

  it('terminal:stuck lists waiting terminal payments older than --minutes', async () => {
    const { plan, paymentId, terminal } = await stuckDeposit();
    // Make the sale 20 minutes old, as a real stuck one would be.
    await app.prisma.paymentPlanPayment.update({
      where: { id: paymentId },
      data: { stateChangedAt: new Date(Date.now() - 20 * 60_000) },
    });

    const listed = JSON.parse(
      (await support(['terminal:stuck', '--minutes', '10', '--account', accountId, '--json'])).stdout,
    );
    expect(listed).toEqual([
      expect.objectContaining({
        plan: plan.id,
        payment: paymentId,
        terminal: terminal.id,
        state: 'waiting',
        deposit: true,
        amount: 100,
        currency: 'USD',
        workflow_id: `payment-plan:${plan.id}`,
      }),
    ]);
    expect(listed[0].age_minutes).toBeGreaterThanOrEqual(20);
    expect(
      JSON.parse((await support(['terminal:stuck', '--minutes', '30', '--account', accountId, '--json'])).stdout),
    ).toEqual([]);
    expect(listed[0]).toMatchObject({
      account: accountId,
      customer_name: 'Ada Lovelace',
      terminal_label: 'Front desk',
    });
    const table = (await support(['terminal:stuck', '--minutes', '10', '--account', accountId])).stdout;
    expect(table).toMatch(/ACCOUNT\s+PLAN\s+PAYMENT\s+CUSTOMER\s+TERMINAL\s+STATE\s+AGE\s+AMOUNT/);
    const line = table.split('\n').find((row) => row.includes(paymentId))!;
    expect(line).toContain(accountId);
    expect(line).toContain('Ada Lovelace');
    expect(line).toContain(`Front desk (${terminal.id})`);
    expect(line).toContain('$1.00');
    expect(line).not.toContain('100 USD');
  });

  it('terminal:resolve sends resolveTerminalPayment and prints the outcome', async () => {
    const { plan, paymentId, terminal } = await stuckDeposit();
    // Without the outcome the workflow refuses: the sale is still waiting.
    const refused = await support(['terminal:resolve', plan.id, paymentId, '--json']).catch((error) => error);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).request).toMatchObject({
      applied: false,
      code: 'parameter_missing',
      param: 'outcome',
    });

    const { stdout } = await support([
      'terminal:resolve',
      plan.id,
      paymentId,
      '--outcome',
      'approved',
      '--external',
      '--json',
    ]);
    const printed = JSON.parse(stdout);
    expect(printed.request).toMatchObject({
      applied: true,
      signal: 'resolveTerminalPayment',
      payment_id: paymentId,
      terminal_state: 'approved',
    });
    expect(printed.payment).toMatchObject({
      id: paymentId,
      status: 'succeeded',
      resolution: { outcome: 'approved', external: true, source: 'support-cli' },
    });
    expect(await getPlan(api, plan.id)).toMatchObject({ status: 'active', deposit: { status: 'paid' } });
    expect(expectStatus(await api.get(`/terminals/${terminal.id}`), 200).status).toBe('idle');

    // A bad argument is refused by the update's validator, naming the field; nothing reaches the workflow.
    const invalid = await support([
      'terminal:resolve',
      plan.id,
      paymentId,
      '--outcome',
      'approved',
      '--payment-method',
      'card_9',
      '--json',
    ]).catch((error) => error);
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout).request).toMatchObject({
      applied: false,
      code: 'parameter_invalid',
      param: 'payment_method',
    });

    const text = await support(['terminal:resolve', plan.id, paymentId, '--outcome', 'declined']).catch(
      (error) => error,
    );
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^Refused: Payment .* is approved/);
  });

  it('terminal:cancel asks the terminal; the payment ends cancelled when it reports', async () => {
    const { plan, paymentId, terminal } = await stuckDeposit();
    const { stdout } = await support(['terminal:cancel', plan.id, paymentId]);
    expect(stdout).toContain('Done: Cancellation of payment');
    expect(stdout).toContain('terminal state waiting (cancel requested)');
    expectStatus(await api.post(`/test-helpers/terminals/${terminal.id}/report-cancel`), 200);
    await eventually(
      () => getPlan(api, plan.id),
      (value) => value.deposit.attempt.state === 'cancelled',
    );
    // Unknown plan or payment: 1 with a message; a usage error: 2.
    await expect(support(['terminal:cancel', plan.id, 'ppay_unknown'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('No payment ppay_unknown'),
    });
    await expect(support(['terminal:resolve', 'pp_unknown', paymentId, '--outcome', 'approved'])).rejects.toMatchObject(
      { code: 1 },
    );
  });

  it('payment-plans:settings turns the feature on and sets the default delay', async () => {
    const off = await createTestAccount(app.prisma);
    const offApi = apiClient(app.baseUrl, off.apiKey);
    expect((await offApi.get('/payment-plans')).status).toBe(403);
    const { stdout } = await support([
      'payment-plans:settings',
      off.accountId,
      '--enable',
      '--default-after-days',
      '30',
      '--json',
    ]);
    expect(JSON.parse(stdout)).toEqual({ account_id: off.accountId, payment_plans: true, default_after_days: 30 });
    // The same settings, read by the same function, as GET /settings/payment-plans.
    expect(expectStatus(await offApi.get('/settings/payment-plans'), 200)).toEqual({
      object: 'payment_plan_settings',
      enabled: true,
      default_after_days: 30,
    });
    expect((await offApi.get('/payment-plans')).status).toBe(200);
    const customer = await createCustomer(offApi);
    const plan = expectStatus(
      await offApi.post('/payment-plans', {
        customer: customer.id,
        total_amount: 200,
        currency: 'USD',
        installments_count: 2,
        interval: 'week',
      }),
      201,
    );
    expect(plan.default_after_days).toBe(30);
    await expect(support(['payment-plans:settings', off.accountId, '--enable', '--disable'])).rejects.toMatchObject({
      code: 2,
    });
    // The range PUT /settings/payment-plans takes: 1 to 365.
    for (const days of ['0', '366', '1.5'])
      await expect(
        support(['payment-plans:settings', off.accountId, '--default-after-days', days]),
      ).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('from 1 to 365') });
  });

  it('payment-plans:settings --disable refuses new plans only: existing ones stay readable and cancellable', async () => {
    const on = await createTestAccount(app.prisma, { paymentPlans: true });
    const onApi = apiClient(app.baseUrl, on.apiKey);
    const customer = await createCustomer(onApi);
    const body = {
      customer: customer.id,
      total_amount: 300,
      currency: 'USD',
      installments_count: 3,
      interval: 'month',
    };
    const plan = expectStatus(await onApi.post('/payment-plans', body), 201);
    expectStatus(await onApi.post(`/payment-plans/${plan.id}/payments`, { external: true }), 201);

    const { stdout } = await support(['payment-plans:settings', on.accountId, '--disable', '--json']);
    expect(JSON.parse(stdout)).toMatchObject({ payment_plans: false });
    const refused = await onApi.post('/payment-plans', body);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('feature_not_enabled');
    expect(expectStatus(await onApi.get(`/payment-plans/${plan.id}`), 200).status).toBe('active');
    expect(expectStatus(await onApi.get('/payment-plans'), 200).data.map((row: any) => row.id)).toEqual([plan.id]);
    expect(expectStatus(await onApi.get(`/payment-plans/${plan.id}/installments`), 200).data).toHaveLength(3);
    expect(expectStatus(await onApi.get(`/payment-plans/${plan.id}/payments`), 200).data).toHaveLength(1);
    expect(expectStatus(await onApi.post(`/payment-plans/${plan.id}/cancel`), 200).status).toBe('canceled');
    // Another account still cannot see it.
    expect((await api.get(`/payment-plans/${plan.id}`)).status).toBe(404);
  });

  describe('customer: why was this customer charged, or not', () => {
    /** A customer (lower-case email) whose subscription's first charge was declined, and a paid one-off invoice. */
    async function declinedCustomer(email: string) {
      const customer = expectStatus(await api.post('/customers', { name: 'Ada Lovelace', email }), 201);
      const card = await addPaymentMethod(api, customer.id, cardBody(CARDS.declined));
      const price = await recurringPrice(api, { unitAmount: 3000 });
      const subscription = expectStatus(
        await api.post('/subscriptions', {
          customer: customer.id,
          items: [{ price, quantity: 1 }],
          trial_days: 0,
          start_date: Math.floor(Date.now() / 1000),
        }),
        201,
      );
      await eventually(
        () => app.prisma.subscription.findUniqueOrThrow({ where: { id: subscription.id } }),
        (row) => row.status === 'past_due',
      );
      const invoice = await app.prisma.invoice.findFirstOrThrow({ where: { subscriptionId: subscription.id } });
      return { customer, card, subscription, invoice };
    }

    it('finds every customer with an upper-case email, with invoice numbers, the declined charge and its reason, and what comes next', async () => {
      const email = `ada.${crypto.randomUUID().slice(0, 8)}@example.com`;
      const { customer, subscription, invoice } = await declinedCustomer(email);
      expect(invoice.number).toMatch(/^INV-\d{6}$/);
      // Another account's customer with the same address (other case): both are shown.
      const other = await createTestAccount(app.prisma);
      const otherCustomer = expectStatus(
        await apiClient(app.baseUrl, other.apiKey).post('/customers', { name: 'Ada L.', email: email.toUpperCase() }),
        201,
      );

      const { stdout } = await support(['customer', email.replace('ada', 'Ada').toUpperCase(), '--json']);
      const printed = JSON.parse(stdout);
      expect(printed.customers.map((row: any) => row.customer.id)).toEqual([customer.id, otherCustomer.id]);
      const [report] = printed.customers;
      expect(report.customer).toMatchObject({
        id: customer.id,
        account: accountId,
        name: 'Ada Lovelace',
        email,
        default_payment_method: { brand: 'visa', last4: '0002' },
      });
      expect(report.invoices).toEqual([
        expect.objectContaining({
          id: invoice.id,
          number: invoice.number,
          status: 'open',
          total: '$30.00',
          billing_reason: 'subscription_create',
        }),
      ]);
      expect(report.charges[0]).toMatchObject({
        invoice: invoice.id,
        invoice_number: invoice.number,
        status: 'failed',
        amount: '$30.00',
        payment_method: { brand: 'visa', last4: '0002' },
        processor: { outcome: 'failed', failure_code: 'card_declined', failure_message: expect.any(String) },
        reason: expect.stringContaining(`invoice ${invoice.number} (first invoice of subscription ${subscription.id}`),
      });
      const [shown] = report.subscriptions;
      expect(shown).toMatchObject({
        id: subscription.id,
        status: 'past_due',
        workflow_id: `subscription:${subscription.id}`,
      });
      expect(shown.dunning).toEqual([
        expect.objectContaining({
          invoice: invoice.id,
          invoice_number: invoice.number,
          retries_scheduled: 3,
          next_retry: 'dunning retry 1 of 3',
          when_retries_fail: 'cancel',
        }),
      ]);
      expect(shown.dunning[0].next_retry_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(report.next[0]).toMatchObject({
        what: expect.stringContaining('dunning retry 1 of 3'),
        of: `subscription ${subscription.id}`,
      });
      expect(report.summary[0]).toMatch(
        /^Last charge of \$30\.00 on visa \*\*\*\*0002 at .*Z: declined \(card_declined/,
      );

      // The same report over HTTP (the dashboard's customer page); another account's id is 404.
      const answered = expectStatus(await api.get(`/customers/${customer.id}/billing-report`), 200);
      expect(answered).toEqual(report);
      expect((await api.get(`/customers/${otherCustomer.id}/billing-report`)).status).toBe(404);
      expect((await api.get('/customers/cus_nobody/billing-report')).status).toBe(404);
      expect((await api.get('/customers/not%20an%20id/billing-report')).body.error).toMatchObject({
        type: 'not_found',
        param: 'externalKey',
      });

      // By id, as text: the same answer in words, times in UTC.
      const text = (await support(['customer', customer.id])).stdout;
      expect(text).toContain(`Customer ${customer.id} (account ${accountId}): Ada Lovelace, ${email}`);
      expect(text).toContain('times UTC, ISO-8601');
      expect(text).toContain(`${invoice.number}  ${invoice.id}  open  $30.00`);
      expect(text).toMatch(/visa \*\*\*\*0002 {2}failed card_declined: /);
      expect(text).toContain(`why: invoice ${invoice.number}`);
      expect(text).toContain(
        `Subscription ${subscription.id} is past_due: invoice ${invoice.number} unpaid after 1 charge; next: dunning retry 1 of 3 at `,
      );

      // Without the workflows (database only): the same dunning, its next retry estimated from the ledger.
      const offline = JSON.parse((await support(['customer', customer.id, '--database-only', '--json'])).stdout)
        .customers[0];
      expect(offline.subscriptions[0].workflow).toEqual({ answered: false, reason: 'not asked (--database-only)' });
      expect(offline.subscriptions[0].dunning[0]).toMatchObject({
        source: 'database',
        charges_made: 1,
        next_retry: 'dunning retry 1 of 3',
      });
    });

    it('says what each payment was from the origin recorded with it: the customer paying on the hosted invoice page is no dunning retry', async () => {
      const start = Date.parse('2025-03-10T10:00:00Z') / 1000;
      const clock = expectStatus(await api.post('/test-helpers/test-clocks', { frozen_time: start }), 201);
      const customer = expectStatus(
        await api.post('/customers', { name: 'Ada Lovelace', email: 'ada.pays@example.com', test_clock: clock.id }),
        201,
      );
      await addPaymentMethod(api, customer.id, cardBody(CARDS.declined));
      const subscription = expectStatus(
        await api.post('/subscriptions', {
          customer: customer.id,
          items: [{ price: await recurringPrice(api, { unitAmount: 3000 }), quantity: 1 }],
          trial_days: 0,
          start_date: start,
        }),
        201,
      );
      const invoice = expectStatus(await api.get(`/invoices/${subscription.latest_invoice}`), 200);
      await eventually(
        () => app.prisma.subscription.findUniqueOrThrow({ where: { id: subscription.id } }),
        (row) => row.status === 'past_due',
      );
      /** The customer pays on the invoice's hosted page with `number` (use_for_future unticked). */
      const payOnPage = async (number: string) => {
        const form = await pageForm(app.baseUrl, hostedPath(invoice));
        const posted = await postForm(app.baseUrl, `${hostedPath(invoice)}/pay`, {
          ...form,
          name: 'Ada Lovelace',
          number,
          exp: EXPIRY,
          cvc: '123',
        });
        expect(posted.status).toBe(303);
      };
      // Attempt 2: the customer on the hosted page, declined; attempt 3: the workflow's first dunning retry a
      // day later; attempt 4: the customer again, paid.
      await payOnPage(CARDS.declined);
      await advanceClock(api, clock.id, start + 86_400 + 3_600);
      await eventually(
        () => app.prisma.transaction.count({ where: { invoiceId: invoice.id } }),
        (count) => count === 3,
      );
      await payOnPage(CARDS.succeeds);
      expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200).status).toBe('paid');
      // A one-off invoice charged through the API (the default card: declined).
      const oneOff = expectStatus(
        await api.post('/invoices', { customer: customer.id, lines: [{ description: 'Setup', amount: 500 }] }),
        201,
      );
      expectStatus(await api.put(`/invoices/${oneOff.id}`, {}), 200);

      const report = expectStatus(await api.get(`/customers/${customer.id}/billing-report`), 200);
      const byId = new Map(report.charges.map((charge: any) => [charge.id, charge]));
      const ledger = await app.prisma.transaction.findMany({
        where: { customerId: customer.id },
        orderBy: [{ invoiceId: 'asc' }, { attempt: 'asc' }],
      });
      const shown = ledger
        .filter((entry) => entry.invoiceId === invoice.id)
        .map((entry) => byId.get(entry.id) as any)
        .map((charge) => [charge.status, charge.origin, charge.reason]);
      const billed = `invoice ${invoice.number} (first invoice of subscription ${subscription.id} for 2025-03-10 to 2025-04-10)`;
      expect(shown).toEqual([
        ['failed', 'subscription_period', `${billed}, attempt 1: first charge`],
        ['failed', 'hosted_invoice_page', `${billed}, attempt 2: payment by the customer on the hosted invoice page`],
        ['failed', 'dunning_retry', `${billed}, attempt 3: dunning retry 1`],
        [
          'succeeded',
          'hosted_invoice_page',
          `${billed}, attempt 4: payment by the customer on the hosted invoice page`,
        ],
      ]);
      const putCharge = report.charges.find((charge: any) => charge.invoice === oneOff.id);
      expect(putCharge).toMatchObject({
        origin: 'api',
        reason: `invoice ${expectStatus(await api.get(`/invoices/${oneOff.id}`), 200).number} (one-off invoice), attempt 1: charged through the API`,
      });
      // The support command says the same, from the same report.
      const text = (await support(['customer', customer.id])).stdout;
      expect(text).toContain(`why: ${billed}, attempt 2: payment by the customer on the hosted invoice page`);
      expect(text).toContain(`why: ${billed}, attempt 3: dunning retry 1`);
      expect(text).not.toContain('dunning retry 2');
      // Another account's id answers nothing.
      const stranger = apiClient(app.baseUrl, (await createTestAccount(app.prisma)).apiKey);
      expect((await stranger.get(`/customers/${customer.id}/billing-report`)).status).toBe(404);
    }, 120_000);

    it('follows a change of email (the database, not the search attribute), and answers 1 when nobody has the email', async () => {
      const before = `grace.${crypto.randomUUID().slice(0, 8)}@example.com`;
      const customer = expectStatus(await api.post('/customers', { name: 'Grace Hopper', email: before }), 201);
      const after = `hopper.${crypto.randomUUID().slice(0, 8)}@example.com`;
      expectStatus(await api.patch(`/customers/${customer.id}`, { email: after }), 200);
      const found = JSON.parse((await support(['customer', after.toUpperCase(), '--json'])).stdout);
      expect(found.customers.map((row: any) => row.customer.id)).toEqual([customer.id]);
      expect(found.customers[0].summary[0]).toBe('No charge was ever made to this customer.');
      await expect(support(['customer', before])).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(`No customer with the email ${before}`),
      });
      await expect(support(['customer', 'not-an-email'])).rejects.toMatchObject({ code: 2 });
      // An underscore is a character, not a LIKE wildcard.
      await expect(support(['customer', after.replace('.', '_')])).rejects.toMatchObject({ code: 1 });
    });
  });

  it('--help prints the usage and exits 0; an unknown option exits 2', async () => {
    for (const args of [['--help'], ['customer', '-h']]) {
      const { stdout } = await support(args);
      expect(stdout).toMatch(/^Usage: npm run support -- <command>\n {2}customer <email\|cus_id>/);
      expect(stdout).toContain('Exit codes: 0 done, 1 failed or refused');
    }
    await expect(support(['customer', 'a@b.c', '--emial'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unknown option '--emial'"),
    });
  });

  it('records who resolved a terminal payment: --operator, and the OS user and host', async () => {
    const { plan, paymentId } = await stuckDeposit();
    await support(['terminal:cancel', plan.id, paymentId, '--operator', 'Jane Support']);
    const [action] = await app.prisma.operatorAction.findMany({ where: { target: paymentId } });
    expect(action).toMatchObject({
      operator: 'Jane Support',
      runAs: `${os.userInfo().username}@${os.hostname()}`,
      command: 'support terminal:cancel',
      accountId,
      detail: expect.objectContaining({
        plan: plan.id,
        request: 'cancelTerminalPayment',
        applied: true,
        request_id: expect.stringMatching(/^support_/),
      }),
    });
  });
});
