import crypto from 'node:crypto';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '../src/config';
import { apiClient, createTestAccount, startTestApp, startTestWorker, type ApiClient, type TestApp } from './support/harness';
import { createCustomer } from './support/payments';
import { createTerminal, eventually, expectStatus, getPlan, quietRuntime } from './support/payment-plans';

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
  quietRuntime();
  const taskQueue = `support-cli-${crypto.randomUUID()}`;
  app = await startTestApp({ taskQueue });
  worker = await startTestWorker(app.prisma, taskQueue);
  const account = await createTestAccount(app.prisma, { paymentPlans: true });
  accountId = account.accountId;
  api = apiClient(app.baseUrl, account.apiKey);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

async function stuckDeposit() {
  const customer = await createCustomer(api, 'Ada Lovelace');
  const terminal = await createTerminal(api);
  const plan = expectStatus(
    await api.post('/payment-plans', { customer: customer.id, total_amount: 500, currency: 'USD', installments_count: 5, interval: 'month' }),
    201,
  );
  const sent = expectStatus(await api.post(`/payment-plans/${plan.id}/deposit/terminal`, { terminal: terminal.id }), 202);
  return { terminal, plan, paymentId: sent.deposit.attempt.payment as string };
}

describe('npm run support', () => {
  it('refuses bad flags and commands with a message naming them, exit 2', async () => {
    const unknown = await support(['terminal:stuck', '--minuts', '5']).catch((error) => error);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^Unknown option '--minuts'\.\nUsage: npm run support/);
    const missing = await support(['terminal:stuck', '--minutes']).catch((error) => error);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining("Option '--minutes <value>' argument missing") });
    const bad = await support(['terminal:stuck', '--minutes', 'ten']).catch((error) => error);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--minutes must be an integer >= 0') });
    expect(await support(['terminal:stcuk']).catch((error) => error)).toMatchObject({ code: 2, stderr: expect.stringContaining('Unknown command "terminal:stcuk"') });
  });

  it('terminal:stuck lists waiting terminal payments older than --minutes', async () => {
    const { plan, paymentId, terminal } = await stuckDeposit();
    // Make the sale 20 minutes old, as a real stuck one would be.
    await app.prisma.paymentPlanPayment.update({ where: { id: paymentId }, data: { stateChangedAt: new Date(Date.now() - 20 * 60_000) } });

    const listed = JSON.parse((await support(['terminal:stuck', '--minutes', '10', '--account', accountId, '--json'])).stdout);
    expect(listed).toEqual([
      expect.objectContaining({ plan: plan.id, payment: paymentId, terminal: terminal.id, state: 'waiting', deposit: true, amount: 100, currency: 'USD', workflow_id: `payment-plan:${plan.id}` }),
    ]);
    expect(listed[0].age_minutes).toBeGreaterThanOrEqual(20);
    expect(JSON.parse((await support(['terminal:stuck', '--minutes', '30', '--account', accountId, '--json'])).stdout)).toEqual([]);
    expect(listed[0]).toMatchObject({ account: accountId, customer_name: 'Ada Lovelace', terminal_label: 'Front desk' });
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
    expect(JSON.parse(refused.stdout).request).toMatchObject({ applied: false, code: 'parameter_missing', param: 'outcome' });

    const { stdout } = await support(['terminal:resolve', plan.id, paymentId, '--outcome', 'approved', '--external', '--json']);
    const printed = JSON.parse(stdout);
    expect(printed.request).toMatchObject({ applied: true, signal: 'resolveTerminalPayment', payment_id: paymentId, terminal_state: 'approved' });
    expect(printed.payment).toMatchObject({ id: paymentId, status: 'succeeded', resolution: { outcome: 'approved', external: true, source: 'support-cli' } });
    expect(await getPlan(api, plan.id)).toMatchObject({ status: 'active', deposit: { status: 'paid' } });
    expect(expectStatus(await api.get(`/terminals/${terminal.id}`), 200).status).toBe('idle');

    // A bad argument is refused by the update's validator, naming the field; nothing reaches the workflow.
    const invalid = await support(['terminal:resolve', plan.id, paymentId, '--outcome', 'approved', '--payment-method', 'card_9', '--json']).catch((error) => error);
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout).request).toMatchObject({ applied: false, code: 'parameter_invalid', param: 'payment_method' });

    const text = await support(['terminal:resolve', plan.id, paymentId, '--outcome', 'declined']).catch((error) => error);
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
    await expect(support(['terminal:cancel', plan.id, 'ppay_unknown'])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('No payment ppay_unknown') });
    await expect(support(['terminal:resolve', 'pp_unknown', paymentId, '--outcome', 'approved'])).rejects.toMatchObject({ code: 1 });
  });

  it('payment-plans:settings turns the feature on and sets the default delay', async () => {
    const off = await createTestAccount(app.prisma);
    const offApi = apiClient(app.baseUrl, off.apiKey);
    expect((await offApi.get('/payment-plans')).status).toBe(403);
    const { stdout } = await support(['payment-plans:settings', off.accountId, '--enable', '--default-after-days', '30', '--json']);
    expect(JSON.parse(stdout)).toEqual({ account_id: off.accountId, payment_plans: true, default_after_days: 30 });
    expect((await offApi.get('/payment-plans')).status).toBe(200);
    const customer = await createCustomer(offApi);
    const plan = expectStatus(
      await offApi.post('/payment-plans', { customer: customer.id, total_amount: 200, currency: 'USD', installments_count: 2, interval: 'week' }),
      201,
    );
    expect(plan.default_after_days).toBe(30);
    await expect(support(['payment-plans:settings', off.accountId, '--enable', '--disable'])).rejects.toMatchObject({ code: 2 });
  });

  it('payment-plans:settings --disable refuses new plans only: existing ones stay readable and cancellable (issue 10 item 3)', async () => {
    const on = await createTestAccount(app.prisma, { paymentPlans: true });
    const onApi = apiClient(app.baseUrl, on.apiKey);
    const customer = await createCustomer(onApi);
    const body = { customer: customer.id, total_amount: 300, currency: 'USD', installments_count: 3, interval: 'month' };
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
});
