import { createPrisma } from '../../src/db/prisma';
import { GatewayUnavailableError } from '../../src/payments/gateway';
import { PAYMENT_PLAN_SIGNALS, paymentPlanWorkflowId } from '../../workflows/payment-plan-contract';
import { paymentReconciliation } from '../../workflows/payment-reconciliation';
import { apiClient, createTestAccount } from '../support/harness';
import {
  CARDS,
  addPaymentMethod,
  cardBody,
  createCustomer,
  gatewayCharges,
  wrappedGateways,
} from '../support/payments';
import {
  eventually,
  expectStatus,
  getPlan,
  installmentsOf,
  startPlanWorld,
  workflowState,
  type PlanWorld,
} from '../support/payment-plans';

// A merchant's payment answered 502 (docs/decisions.md §9, "Who tells the plan's workflow"): the API's processor
// either cannot be reached (nothing was charged) or loses its answer (the charge was made). The worker's gateway is
// the real simulated one, which the reconciliation asks. The plan has no card on file, so its workflow has nothing
// scheduled: it learns of the payment only when told (else from its idle re-read, a day later).
type Failure = 'unreachable' | 'answer_lost';
let failure: Failure | null = null;
const gatewayDb = createPrisma(process.env.DATABASE_URL!, 2);
let world: PlanWorld;

beforeAll(async () => {
  world = await startPlanWorld({
    gateways: wrappedGateways(gatewayDb, (real) => ({
      async charge(request) {
        if (failure === 'unreachable') throw new GatewayUnavailableError('simulated', 'connection refused');
        const answered = await real.charge(request);
        return failure === 'answer_lost'
          ? { status: 'unknown', reason: 'timeout after the request was sent' }
          : answered;
      },
      retrieveCharge: (request) =>
        failure ? Promise.reject(new GatewayUnavailableError('simulated', 'down')) : real.retrieveCharge(request),
    })),
  });
});

afterAll(async () => {
  await world.close();
  await gatewayDb.$disconnect();
});

/** How many planUpdated notices the plan's workflow has received. */
async function noticesOf(planId: string): Promise<number> {
  const { events } = await world.env.client.workflow.getHandle(paymentPlanWorkflowId(planId)).fetchHistory();
  return (events ?? []).filter(
    (event) => event.workflowExecutionSignaledEventAttributes?.signalName === PAYMENT_PLAN_SIGNALS.planUpdated,
  ).length;
}

/**
 * One pass of the reconciliation on the world's worker, polled to its end and its result never asked: asking for a
 * result on the time-skipping server (even of a closed run) skips time to the plan's idle re-read, which would teach
 * it the payment anyway.
 */
async function reconcile(): Promise<void> {
  const handle = await world.env.client.workflow.start(paymentReconciliation, {
    taskQueue: world.taskQueue,
    workflowId: `payment-reconciliation-test-${crypto.randomUUID()}`,
    args: [{ pendingOlderThanMs: 0 }],
  });
  const run = await eventually(
    () => handle.describe(),
    (described) => described.status.name !== 'RUNNING',
  );
  expect(run.status.name).toBe('COMPLETED');
}

it.each<[Failure, string]>([
  ['unreachable', 'the processor could not be reached'],
  ['answer_lost', "the processor's answer was lost"],
])(
  'a payment answered 502 (%s: %s) and settled by the reconciliation is told to the workflow, once each, one charge',
  async (mode) => {
    const customer = await createCustomer(world.api);
    const card = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
    const plan = expectStatus(
      await world.api.post('/payment-plans', {
        customer: customer.id,
        total_amount: 300,
        currency: 'USD',
        installments_count: 3,
        interval: 'month',
      }),
      201,
    );
    expect((await workflowState(world.env, plan.id)).status).toBe('pending');
    const noticesBefore = await noticesOf(plan.id);
    const chargesBefore = await gatewayCharges(world.app.prisma, world.accountId);

    failure = mode;
    const refused = await world.api.post(`/payment-plans/${plan.id}/payments`, { payment_method: card.id });
    failure = null;
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('gateway_unavailable');
    const [inFlight] = expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments`), 200).data;
    expect(inFlight).toMatchObject({ method: 'payment_method', status: 'processing', amount: 100 });
    // The workflow is told of the payment in flight (its installment held), although the request failed.
    await eventually(
      () => noticesOf(plan.id),
      (count) => count === noticesBefore + 1,
    );

    await reconcile();
    expect(await getPlan(world.api, plan.id)).toMatchObject({ status: 'active', amount_paid: 100 });
    // The workflow learns the deposit was paid at once, not at its idle re-read a day later.
    const learned = await eventually(
      () => workflowState(world.env, plan.id),
      (state) => state.status === 'active',
    );
    expect(learned).toMatchObject({ installmentsPaid: 1, installmentsCount: 3 });
    expect(await noticesOf(plan.id)).toBe(noticesBefore + 2);

    // A second pass finds nothing of the plan in flight: no second notice, no second charge.
    await reconcile();
    expect(await noticesOf(plan.id)).toBe(noticesBefore + 2);
    expect(await gatewayCharges(world.app.prisma, world.accountId)).toBe(chargesBefore + 1);
    const payments = expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments`), 200).data;
    expect(payments).toEqual([expect.objectContaining({ id: inFlight.id, status: 'succeeded', amount: 100 })]);
    expect((await installmentsOf(world.api, plan.id)).map((row: { status: string }) => row.status)).toEqual([
      'paid',
      'scheduled',
      'scheduled',
    ]);

    // Another account sees none of it.
    const other = apiClient(
      world.app.baseUrl,
      (await createTestAccount(world.app.prisma, { paymentPlans: true, name: 'Other Co' })).apiKey,
    );
    expect((await other.get(`/payment-plans/${plan.id}`)).status).toBe(404);
    expect((await other.get(`/payment-plans/${plan.id}/payments/${inFlight.id}`)).status).toBe(404);
  },
);
