import { BANK_DEBIT_SETTLEMENT_MS } from '../../workflows/bank-debit-settlement';
import { HELD_PAYMENT_RECHECK_MS } from '../../activities/payment-plans';
import { BANK_ACCOUNTS, addPaymentMethod, bankBody, createCustomer, settlementTimerSet } from '../support/payments';
import { apiClient, createTestAccount } from '../support/harness';
import {
  eventually,
  expectStatus,
  getPlan,
  installmentsOf,
  planEvents,
  startPlanWorld,
  type PlanWorld,
} from '../support/payment-plans';

/**
 * A payment plan paid from a US bank account on the simulated gateway (docs/decisions.md §40): each installment's
 * debit is pending for the bank's four days (the installment `processing`, the plan's workflow asking again under
 * the same key: never a second debit), then paid, or returned with its ACH code (a failed installment: the plan
 * past_due). On a time-skipping Temporal environment the settlement timer runs when the environment's clock passes it.
 */
async function planByBank(world: PlanWorld, accountNumber: string) {
  const customer = await createCustomer(world.api);
  const method = await addPaymentMethod(world.api, customer.id, bankBody(accountNumber));
  const plan = expectStatus(
    await world.api.post('/payment-plans', {
      customer: customer.id,
      total_amount: 9000,
      currency: 'usd',
      installments_count: 3,
      interval: 'month',
      payment_method: method.id,
    }),
    201,
    'POST /payment-plans',
  );
  return { plan, method };
}

const debitsOf = (world: PlanWorld) =>
  world.app.prisma.transaction.findMany({ where: { accountId: world.accountId }, orderBy: { createdAt: 'asc' } });

/**
 * Waits until installment `number` has its debit pending at the bank and the bank's settlement timer set (the clock
 * moved before it would never reach it), and answers the plan's installments then.
 */
async function debitPending(world: PlanWorld, planId: string, number: number) {
  // Pending with the bank's reference: the row is written pending before the debit is asked for.
  const accepted = (row: Awaited<ReturnType<typeof debitsOf>>[number]) =>
    row.gatewayKey?.includes(`:installment:${number}:`) && row.status === 'pending' && row.gatewayReference !== null;
  const rows = await eventually(
    () => debitsOf(world),
    (rows) => rows.some(accepted),
  );
  await settlementTimerSet(world.env.client, rows.find(accepted)!.gatewayReference!);
  return installmentsOf(world.api, planId);
}

/** The bank answers: the environment's clock moves past the settlement delay and the workflow's next question. */
const bankAnswers = (world: PlanWorld) => world.env.sleep(BANK_DEBIT_SETTLEMENT_MS + HELD_PAYMENT_RECHECK_MS + 60_000);

describe('a plan paid from a bank account that pays', () => {
  let world: PlanWorld;
  beforeAll(async () => {
    world = await startPlanWorld();
  });
  afterAll(() => world.close());

  it('holds the deposit processing for the bank’s days, then pays it and activates the plan; one debit', async () => {
    const { plan } = await planByBank(world, BANK_ACCOUNTS.succeeds);
    const whileHeld = await debitPending(world, plan.id, 1);
    expect(whileHeld.map((row: any) => [row.number, row.status])).toEqual([
      [1, 'processing'],
      [2, 'scheduled'],
      [3, 'scheduled'],
    ]);
    expect(await getPlan(world.api, plan.id)).toMatchObject({ status: 'pending', amount_paid: 0 });
    const other = apiClient(
      world.app.baseUrl,
      (await createTestAccount(world.app.prisma, { name: 'Other', paymentPlans: true })).apiKey,
    );
    expect((await other.get(`/payment-plans/${plan.id}`)).status).toBe(404);

    await bankAnswers(world);
    await eventually(
      () => getPlan(world.api, plan.id),
      (current) => current.status === 'active' && current.amount_paid === 3000,
    );

    const debits = await debitsOf(world);
    expect(debits.map((row) => [row.status, Number(row.amount), row.gatewayKey])).toEqual([
      ['succeeded', 3000, `payment-plan:${plan.id}:installment:1:attempt:1`],
    ]);
    expect(await planEvents(world, plan.id)).toEqual(['created', 'payment_succeeded', 'installment_paid', 'activated']);
  });
});

describe('a plan paid from a bank account that returns the debit', () => {
  let world: PlanWorld;
  beforeAll(async () => {
    world = await startPlanWorld();
  });
  afterAll(() => world.close());

  it('fails the deposit with the ACH return when the bank answers, never debiting it twice: the plan is past_due', async () => {
    const { plan } = await planByBank(world, BANK_ACCOUNTS.insufficientFunds);
    await debitPending(world, plan.id, 1);
    await bankAnswers(world);
    const pastDue = await eventually(
      () => getPlan(world.api, plan.id),
      (current) => current.status === 'past_due',
    );
    expect(pastDue).toMatchObject({ amount_paid: 0, amount_overdue: 3000, deposit: { status: 'unpaid' } });
    const [deposit] = await installmentsOf(world.api, plan.id);
    expect(deposit).toMatchObject({ number: 1, status: 'failed' });
    const debits = await debitsOf(world);
    expect(debits.map((row) => [row.status, row.failureCode, row.gatewayKey])).toEqual([
      ['failed', 'bank_return_R01', `payment-plan:${plan.id}:installment:1:attempt:1`],
    ]);
    expect(await planEvents(world, plan.id)).toEqual(['created', 'installment_failed', 'past_due']);
  });
});
