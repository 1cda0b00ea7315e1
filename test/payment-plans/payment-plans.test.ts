import { BILLING_ACCOUNT_ID, BILLING_CUSTOMER_ID, BILLING_STATUS } from '../../src/temporal/search-attributes';
import { PAYMENT_PLAN_SIGNALS, paymentPlanWorkflowId } from '../../workflows/payment-plan-contract';
import { CARDS, addPaymentMethod, cardBody, createCustomer } from '../support/payments';
import {
  DAY_MS,
  eventually,
  expectStatus,
  getPlan,
  installmentsOf,
  planEvents,
  planHasStatus,
  startPlanWorld,
  workflowState,
  type PlanWorld,
} from '../support/payment-plans';

async function planWithCard(world: PlanWorld, total: number, count: number, card: string = CARDS.succeeds) {
  const customer = await createCustomer(world.api);
  const method = await addPaymentMethod(world.api, customer.id, cardBody(card));
  const plan = expectStatus(
    await world.api.post('/payment-plans', {
      customer: customer.id,
      total_amount: total,
      currency: 'usd',
      installments_count: count,
      interval: 'month',
      payment_method: method.id,
    }),
    201,
    'POST /payment-plans',
  );
  return { customer, method, plan };
}

describe('a 4-installment monthly plan with a card on file', () => {
  let world: PlanWorld;
  beforeAll(async () => {
    world = await startPlanWorld();
  });
  afterAll(() => world.close());

  it('charges the deposit at once and the rest on their dates, then completes', async () => {
    const { plan, method } = await planWithCard(world, 10001, 4);
    expect(plan).toMatchObject({
      object: 'payment_plan',
      status: 'pending',
      currency: 'USD',
      total_amount: 10001,
      installments_count: 4,
      interval: 'month',
      interval_count: 1,
      payment_method: method.id,
      deposit: { installment: 1, amount: 2501 },
    });
    expect(plan.id).toMatch(/^pp_[a-zA-Z0-9]+$/);

    const result = await world.env.client.workflow.getHandle(paymentPlanWorkflowId(plan.id)).result();
    expect(result).toMatchObject({ status: 'completed', installmentsPaid: 4, installmentsCount: 4 });

    const done = await getPlan(world.api, plan.id);
    expect(done).toMatchObject({
      status: 'completed',
      amount_paid: 10001,
      amount_remaining: 0,
      installments_paid: 4,
      deposit: { status: 'paid' },
    });
    const installments = await installmentsOf(world.api, plan.id);
    expect(installments.map((row: any) => [row.number, row.amount, row.status])).toEqual([
      [1, 2501, 'paid'],
      [2, 2500, 'paid'],
      [3, 2500, 'paid'],
      [4, 2500, 'paid'],
    ]);
    expect(await planEvents(world, plan.id)).toEqual([
      'created',
      'payment_succeeded',
      'installment_paid',
      'activated',
      'payment_succeeded',
      'installment_paid',
      'payment_succeeded',
      'installment_paid',
      'payment_succeeded',
      'installment_paid',
      'completed',
    ]);
    const transactions = await world.app.prisma.transaction.findMany({
      where: { accountId: world.accountId },
      orderBy: { createdAt: 'asc' },
    });
    expect(transactions.map((row) => [row.type, row.status, Number(row.amount), row.gatewayKey])).toEqual(
      [1, 2, 3, 4].map((n) => [
        'payment',
        'succeeded',
        n === 1 ? 2501 : 2500,
        `payment-plan:${plan.id}:installment:${n}:attempt:1`,
      ]),
    );
  });
});

describe('workflow state', () => {
  let world: PlanWorld;
  beforeAll(async () => {
    world = await startPlanWorld();
  });
  afterAll(() => world.close());

  it('answers the state query with the next timer', async () => {
    const { plan } = await planWithCard(world, 300, 3);
    await planHasStatus(world.api, plan.id, 'active');
    const state = await eventually(
      () => workflowState(world.env, plan.id),
      (value) => value.status === 'active' && value.nextAction !== null,
    );
    expect(state).toMatchObject({ status: 'active', nextAction: 'charge_installment', installmentsPaid: 1 });
    expect(state.nextWakeAt! - Date.now()).toBeGreaterThan(27 * DAY_MS);
    const description = await world.env.client.workflow.getHandle(paymentPlanWorkflowId(plan.id)).describe();
    expect(description.type).toBe('paymentPlanWorkflow');
    expect(description.typedSearchAttributes.get(BILLING_STATUS)).toBe('active');
    expect(description.typedSearchAttributes.get(BILLING_ACCOUNT_ID)).toBe(world.accountId);
    expect(description.typedSearchAttributes.get(BILLING_CUSTOMER_ID)).toBe(plan.customer);
  });
});

/** A plan without a card whose deposit is approved on a terminal with `card` (which the plan then keeps). */
async function planPaidOnTerminal(world: PlanWorld, card: string, total = 400, count = 4) {
  const customer = await createCustomer(world.api);
  const terminal = expectStatus(await world.api.post('/terminals', { label: 'Desk' }), 201);
  const plan = expectStatus(
    await world.api.post('/payment-plans', {
      customer: customer.id,
      total_amount: total,
      currency: 'USD',
      installments_count: count,
      interval: 'month',
    }),
    201,
  );
  expectStatus(await world.api.post(`/payment-plans/${plan.id}/deposit/terminal`, { terminal: terminal.id }), 202);
  expectStatus(
    await world.api.post(`/test-helpers/terminals/${terminal.id}/present-card`, {
      outcome: 'approved',
      card: { number: card },
    }),
    200,
  );
  const active = await planHasStatus(world.api, plan.id, 'active');
  return { customer, terminal, plan: active };
}

async function paymentTransactions(world: PlanWorld) {
  return world.app.prisma.transaction.findMany({
    where: { accountId: world.accountId, type: 'payment' },
    orderBy: { createdAt: 'asc' },
  });
}

describe('a declined automatic charge', () => {
  let world: PlanWorld;
  beforeEach(async () => {
    world = await startPlanWorld();
  });
  afterEach(() => world.close());

  it('fails the installment, makes the plan past_due, and paying what is overdue reactivates it', async () => {
    const { plan, customer } = await planPaidOnTerminal(world, CARDS.declined);
    expect(plan.payment_method).toMatch(/^pm_/);

    await world.env.sleep(32 * DAY_MS);
    const pastDue = await planHasStatus(world.api, plan.id, 'past_due');
    expect(pastDue).toMatchObject({ amount_overdue: 100, installments_paid: 1, next_installment: { number: 2 } });
    const installments = await installmentsOf(world.api, plan.id);
    expect(installments[1]).toMatchObject({
      number: 2,
      status: 'failed',
      failure_code: 'card_declined',
      automatic_attempts: 1,
    });
    expect(await planEvents(world, plan.id)).toEqual([
      'created',
      'payment_succeeded',
      'installment_paid',
      'activated',
      'installment_failed',
      'past_due',
    ]);

    // No automatic retry: a day later the installment has still been tried once.
    await world.env.sleep(DAY_MS);
    const declined = (await paymentTransactions(world)).filter((row) => row.status === 'failed');
    expect(declined).toHaveLength(1);
    expect(declined[0]!.gatewayKey).toBe(`payment-plan:${plan.id}:installment:2:attempt:1`);

    const card = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
    const payment = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: card.id,
        save_payment_method: true,
      }),
      201,
    );
    expect(payment).toMatchObject({
      object: 'payment_plan_payment',
      method: 'payment_method',
      status: 'succeeded',
      amount: 100,
      installments: [2],
    });
    const reactivated = await getPlan(world.api, plan.id);
    expect(reactivated).toMatchObject({
      status: 'active',
      amount_overdue: 0,
      installments_paid: 2,
      payment_method: card.id,
      past_due_at: null,
    });
    expect((await planEvents(world, plan.id)).slice(-3)).toEqual([
      'payment_succeeded',
      'installment_paid',
      'reactivated',
    ]);
    const state = await eventually(
      () => workflowState(world.env, plan.id),
      (value) => value.status === 'active' && value.nextAction !== null,
    );
    expect(state).toMatchObject({ nextAction: 'charge_installment', installmentsPaid: 2 });
  });

  it('defaults the plan 14 days after it became past_due; installments falling due meanwhile are not charged', async () => {
    const { plan, customer } = await planPaidOnTerminal(world, CARDS.insufficientFunds);
    await world.env.sleep(32 * DAY_MS);
    const pastDue = await planHasStatus(world.api, plan.id, 'past_due');
    expect((await installmentsOf(world.api, plan.id))[1]).toMatchObject({
      status: 'failed',
      failure_code: 'insufficient_funds',
    });

    await world.env.sleep(15 * DAY_MS);
    const defaulted = await planHasStatus(world.api, plan.id, 'defaulted');
    expect(defaulted.defaulted_at - pastDue.past_due_at).toBe(14 * 86_400);
    expect((await planEvents(world, plan.id)).slice(-2)).toEqual(['past_due', 'defaulted']);

    // Installment 3 falls due while defaulted: overdue, not charged.
    await world.env.sleep(20 * DAY_MS);
    await eventually(
      () => installmentsOf(world.api, plan.id),
      (rows) => rows[2].status === 'overdue',
    );
    expect(await paymentTransactions(world)).toHaveLength(2);
    expect(await getPlan(world.api, plan.id)).toMatchObject({ status: 'defaulted', amount_overdue: 200 });

    const card = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
    const payment = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: card.id,
        save_payment_method: true,
      }),
      201,
    );
    expect(payment).toMatchObject({ status: 'succeeded', amount: 200, installments: [2, 3] });
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'active',
      defaulted_at: null,
      amount_overdue: 0,
    });
    expect((await planEvents(world, plan.id)).slice(-4)).toEqual([
      'payment_succeeded',
      'installment_paid',
      'installment_paid',
      'reactivated',
    ]);

    // Automatic charging resumes with the saved card: installment 4 completes the plan.
    const result = await world.env.client.workflow.getHandle(paymentPlanWorkflowId(plan.id)).result();
    expect(result.status).toBe('completed');
    expect((await planEvents(world, plan.id)).slice(-3)).toEqual([
      'payment_succeeded',
      'installment_paid',
      'completed',
    ]);
  });
});

describe('a pending plan whose deposit charge failed', () => {
  let world: PlanWorld;
  beforeAll(async () => {
    world = await startPlanWorld();
  });
  afterAll(() => world.close());

  it('goes past_due like a missed installment, is defaulted after 14 days, and paying the deposit activates it', async () => {
    const { plan, customer } = await planWithCard(world, 400, 4, CARDS.declined);
    const pastDue = await planHasStatus(world.api, plan.id, 'past_due');
    expect(pastDue).toMatchObject({
      amount_paid: 0,
      amount_overdue: 100,
      activated_at: null,
      deposit: { status: 'unpaid' },
    });
    const state = await eventually(
      () => workflowState(world.env, plan.id),
      (value) => value.status === 'past_due' && value.nextAction !== null,
    );
    expect(state.nextAction).toBe('default');
    expect(Math.floor(state.nextWakeAt! / 1000) - pastDue.past_due_at).toBe(14 * 86_400);

    await world.env.sleep(15 * DAY_MS);
    const defaulted = await planHasStatus(world.api, plan.id, 'defaulted');
    expect(defaulted.defaulted_at - pastDue.past_due_at).toBe(14 * 86_400);
    expect(await planEvents(world, plan.id)).toEqual(['created', 'installment_failed', 'past_due', 'defaulted']);

    const card = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
    const payment = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: card.id,
        save_payment_method: true,
      }),
      201,
    );
    expect(payment).toMatchObject({ status: 'succeeded', installments: [1], deposit: true });
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'active',
      defaulted_at: null,
      past_due_at: null,
      amount_paid: 100,
    });
    // It never ran before: activated, not reactivated.
    expect((await planEvents(world, plan.id)).slice(-3)).toEqual([
      'payment_succeeded',
      'installment_paid',
      'activated',
    ]);
  });

  it('a plan left pending by older code (failed deposit, no schedule) is settled past_due when its workflow next looks', async () => {
    const { plan } = await planWithCard(world, 300, 3, CARDS.declined);
    await planHasStatus(world.api, plan.id, 'past_due');
    // What older code left behind: pending with the deposit failed and no past_due_at.
    await world.app.prisma.paymentPlan.update({ where: { id: plan.id }, data: { status: 'pending', pastDueAt: null } });
    await world.env.client.workflow.getHandle(paymentPlanWorkflowId(plan.id)).signal(PAYMENT_PLAN_SIGNALS.planUpdated);
    const settled = await planHasStatus(world.api, plan.id, 'past_due');
    expect(settled.past_due_at).not.toBeNull();
    const state = await eventually(
      () => workflowState(world.env, plan.id),
      (value) => value.status === 'past_due' && value.nextAction !== null,
    );
    expect(state.nextAction).toBe('default');
  });
});

describe('canceling a plan mid-way', () => {
  let world: PlanWorld;
  beforeAll(async () => {
    world = await startPlanWorld();
  });
  afterAll(() => world.close());

  it('stops the charges: remaining installments are canceled and nothing more is charged', async () => {
    const { plan } = await planWithCard(world, 1000, 4);
    await planHasStatus(world.api, plan.id, 'active');
    await world.env.sleep(32 * DAY_MS);
    await eventually(
      () => getPlan(world.api, plan.id),
      (value) => value.installments_paid === 2,
    );

    const canceled = expectStatus(await world.api.post(`/payment-plans/${plan.id}/cancel`), 200);
    expect(canceled).toMatchObject({
      status: 'canceled',
      cancellation_reason: 'requested',
      amount_paid: 500,
      next_installment: null,
    });
    expect((await installmentsOf(world.api, plan.id)).map((row: any) => row.status)).toEqual([
      'paid',
      'paid',
      'canceled',
      'canceled',
    ]);
    const result = await world.env.client.workflow.getHandle(paymentPlanWorkflowId(plan.id)).result();
    expect(result.status).toBe('canceled');
    expect(result.requests).toEqual([expect.objectContaining({ signal: 'cancelPlan', applied: true })]);

    await world.env.sleep(120 * DAY_MS);
    expect(await paymentTransactions(world)).toHaveLength(2);
    expect((await planEvents(world, plan.id)).at(-1)).toBe('canceled');
    expect((await world.api.post(`/payment-plans/${plan.id}/cancel`)).status).toBe(409);
    expect((await world.api.post(`/payment-plans/${plan.id}/payments`, { external: true })).body.error.code).toBe(
      'payment_plan_closed',
    );
  });
});

describe('external payments', () => {
  let world: PlanWorld;
  beforeAll(async () => {
    world = await startPlanWorld();
  });
  afterAll(() => world.close());

  it('records money collected elsewhere without a charge; a plan without a card lets installments fall overdue', async () => {
    const customer = await createCustomer(world.api);
    const plan = expectStatus(
      await world.api.post('/payment-plans', {
        customer: customer.id,
        total_amount: 900,
        currency: 'USD',
        installments_count: 3,
        interval: 'week',
        interval_count: 2,
      }),
      201,
    );
    const payment = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, { external: true, external_reference: 'cheque 1042' }),
      201,
    );
    expect(payment).toMatchObject({
      method: 'external',
      status: 'succeeded',
      deposit: true,
      amount: 300,
      installments: [1],
      external_reference: 'cheque 1042',
      transaction: null,
    });
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'active',
      payment_method: null,
      deposit: { status: 'paid' },
    });
    expect(await paymentTransactions(world)).toHaveLength(0);

    await world.env.sleep(15 * DAY_MS);
    await planHasStatus(world.api, plan.id, 'past_due');
    expect((await installmentsOf(world.api, plan.id))[1]).toMatchObject({ status: 'overdue', automatic_attempts: 0 });
    expect(await planEvents(world, plan.id)).toEqual([
      'created',
      'payment_succeeded',
      'installment_paid',
      'activated',
      'past_due',
    ]);

    expectStatus(await world.api.post(`/payment-plans/${plan.id}/payments`, { external: true }), 201);
    expect((await getPlan(world.api, plan.id)).status).toBe('active');
    // Paying ahead: nothing is overdue, so the next installment is paid, which completes the plan.
    const last = expectStatus(await world.api.post(`/payment-plans/${plan.id}/payments`, { external: true }), 201);
    expect(last.installments).toEqual([3]);
    expect(await getPlan(world.api, plan.id)).toMatchObject({ status: 'completed', amount_paid: 900 });
    expect((await planEvents(world, plan.id)).slice(-4)).toEqual([
      'reactivated',
      'payment_succeeded',
      'installment_paid',
      'completed',
    ]);
    expect((await world.api.post(`/payment-plans/${plan.id}/payments`, { external: true })).status).toBe(409);
    const payments = expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments`), 200);
    expect(payments.meta.itemsTotal).toBe(3);
    expect(expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments/${payment.id}`), 200)).toMatchObject({
      id: payment.id,
    });
  });
});
