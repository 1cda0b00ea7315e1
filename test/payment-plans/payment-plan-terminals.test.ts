import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  PAYMENT_PLAN_SIGNALS,
  paymentPlanWorkflowId,
  REQUEST_REFUSED_FAILURE,
} from '../../workflows/payment-plan-contract';
import { chargeStoredMethod } from '../../src/payment-plans/plan-payments.service';
import { apiClient, createTestAccount, eventsOf } from '../support/harness';
import { CARDS, addPaymentMethod, cardBody, createCustomer, wrappedGateways } from '../support/payments';
import {
  createTerminal,
  eventually,
  expectStatus,
  getPlan,
  installmentsOf,
  planEvents,
  startPlanWorld,
  terminalDepositWaiting,
  workflowState,
  type PlanWorld,
} from '../support/payment-plans';

let world: PlanWorld;
beforeAll(async () => {
  world = await startPlanWorld();
});
afterAll(() => world.close());

/** A plan without a card (300 over 3) and a terminal holding its deposit sale. */
const depositWaiting = () => terminalDepositWaiting(world.api);

const present = (terminalId: string, body: object) =>
  world.api.post(`/test-helpers/terminals/${terminalId}/present-card`, body);

describe('terminals', () => {
  it('registers, lists and shows terminals of the account', async () => {
    const terminal = await createTerminal(world.api, 'Counter 2');
    expect(terminal).toMatchObject({ object: 'terminal', label: 'Counter 2', status: 'idle', current_sale: null });
    expect(terminal.id).toMatch(/^tml_[a-zA-Z0-9]+$/);
    expect(expectStatus(await world.api.get(`/terminals/${terminal.id}`), 200)).toEqual(terminal);
    const list = expectStatus(await world.api.get('/terminals?take=100'), 200);
    expect(list.data.map((row: any) => row.id)).toContain(terminal.id);
    expect((await world.api.post('/terminals', { label: '' })).body.error.param).toBe('label');
    expect((await world.api.post('/terminals', { label: 'x', model: 'y' })).body.error).toMatchObject({
      code: 'parameter_unknown',
      param: 'model',
    });
    expect((await world.api.get('/terminals/tml_doesnotexist')).status).toBe(404);
  });

  it.each<[string, unknown]>([
    ['empty', ''],
    ['whitespace only', '   \t '],
    ['101 characters', 'r'.repeat(101)],
    ['101 characters between spaces', ` ${'r'.repeat(101)} `],
    ['a number', 12345],
    ['null', null],
    ['an object', { code: 'simulated-wpe' }],
  ])('refuses a registration_code that is %s: 400 naming it, no terminal written', async (_, registrationCode) => {
    const before = expectStatus(await world.api.get('/terminals?take=100'), 200);
    const refused = await world.api.post('/terminals', { label: 'Counter 3', registration_code: registrationCode });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param: 'registration_code' });
    expect(expectStatus(await world.api.get('/terminals?take=100'), 200)).toEqual(before);
  });

  it('takes a registration_code of 1 to 100 characters, trimmed, and none at all: a simulated terminal ignores it (api.md "Terminals")', async () => {
    for (const registrationCode of [undefined, 'r', ` ${'r'.repeat(100)} `]) {
      const body =
        registrationCode === undefined
          ? { label: 'Counter 4' }
          : { label: 'Counter 4', registration_code: registrationCode };
      expect(expectStatus(await world.api.post('/terminals', body), 201)).toMatchObject({
        object: 'terminal',
        label: 'Counter 4',
        status: 'idle',
      });
    }
  });

  it('test helpers answer 409 when no sale waits', async () => {
    const terminal = await createTerminal(world.api);
    expect((await present(terminal.id, { outcome: 'approved' })).body.error.code).toBe('terminal_idle');
    expect((await world.api.post(`/test-helpers/terminals/${terminal.id}/report-cancel`)).status).toBe(409);
    expect((await present(terminal.id, { outcome: 'maybe' })).body.error.param).toBe('outcome');
    expect(
      (await present(terminal.id, { outcome: 'approved', card: { number: '4242424242424241' } })).body.error.param,
    ).toBe('card.number');
  });
});

describe('a deposit on a terminal', () => {
  it('approved: the deposit is paid, the card saved and kept for the next installments, the plan activated', async () => {
    const { customer, terminal, plan, sent, paymentId } = await depositWaiting();
    expect(sent).toMatchObject({
      status: 'pending',
      deposit: {
        status: 'processing',
        amount: 100,
        attempt: { method: 'terminal', terminal: terminal.id, state: 'waiting', cancel_requested: false },
      },
    });
    const busy = expectStatus(await world.api.get(`/terminals/${terminal.id}`), 200);
    expect(busy).toMatchObject({ status: 'busy', current_sale: { payment: paymentId, amount: 100, currency: 'USD' } });
    expect((await installmentsOf(world.api, plan.id))[0]).toMatchObject({ status: 'processing', payment: paymentId });

    const payment = expectStatus(
      await present(terminal.id, { outcome: 'approved', card: { number: '5555 5555 5555 4444' } }),
      200,
    );
    expect(payment).toMatchObject({
      id: paymentId,
      status: 'succeeded',
      deposit: true,
      terminal: { state: 'approved' },
    });
    const active = await getPlan(world.api, plan.id);
    expect(active).toMatchObject({
      status: 'active',
      payment_method: payment.payment_method,
      deposit: { status: 'paid', attempt: { state: 'approved' } },
    });
    const card = expectStatus(
      await world.api.get(`/customers/${customer.id}/payment-methods/${payment.payment_method}`),
      200,
    );
    expect(card).toMatchObject({ customer: customer.id, card: { brand: 'mastercard', last4: '4444' } });
    const transaction = await world.app.prisma.transaction.findUniqueOrThrow({ where: { id: payment.transaction } });
    expect(transaction).toMatchObject({
      type: 'payment',
      status: 'succeeded',
      amount: 100n,
      paymentMethodId: card.id,
      gatewayReference: payment.terminal.sale,
    });
    expect(expectStatus(await world.api.get(`/terminals/${terminal.id}`), 200).status).toBe('idle');
    // The API told the workflow, which now waits for installment 2 with the saved card.
    const state = await eventually(
      () => workflowState(world.env, plan.id),
      (value) => value.nextAction === 'charge_installment',
    );
    expect(state).toMatchObject({ status: 'active', installmentsPaid: 1 });
  });

  it('declined: nothing paid, the plan stays pending, and another attempt may follow', async () => {
    const { terminal, plan, paymentId } = await depositWaiting();
    const payment = expectStatus(await present(terminal.id, { outcome: 'declined' }), 200);
    expect(payment).toMatchObject({ status: 'failed', failure_code: 'card_declined', terminal: { state: 'declined' } });
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'pending',
      deposit: { status: 'unpaid', attempt: { payment: paymentId, state: 'declined' } },
    });
    const failed = await world.app.prisma.transaction.findUniqueOrThrow({ where: { id: payment.transaction } });
    expect(failed).toMatchObject({ type: 'payment', status: 'failed', failureCode: 'card_declined' });

    const again = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/deposit/terminal`, { terminal: terminal.id }),
      202,
    );
    expect(again.deposit.attempt.payment).not.toBe(paymentId);
    expectStatus(await present(terminal.id, { outcome: 'approved' }), 200);
    expect((await getPlan(world.api, plan.id)).status).toBe('active');
    expect(
      (await world.api.post(`/payment-plans/${plan.id}/deposit/terminal`, { terminal: terminal.id })).body.error.code,
    ).toBe('deposit_paid');
  });

  it('approved_no_credential: paid, no card kept; POST /deposit continues it with a card', async () => {
    const { customer, terminal, plan, paymentId } = await depositWaiting();
    const payment = expectStatus(await present(terminal.id, { outcome: 'approved_no_credential' }), 200);
    expect(payment).toMatchObject({
      status: 'succeeded',
      payment_method: null,
      terminal: { state: 'approved_no_credential' },
    });
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'pending',
      payment_method: null,
      amount_paid: 100,
      deposit: { status: 'action_required', attempt: { state: 'approved_no_credential' } },
    });

    const missing = await world.api.post(`/payment-plans/${plan.id}/deposit`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ param: 'payment_method', code: 'parameter_missing' });
    expect((await world.api.post(`/payment-plans/${plan.id}/deposit`, { outcome: 'declined' })).body.error.param).toBe(
      'outcome',
    );
    const foreign = await addPaymentMethod(world.api, (await createCustomer(world.api)).id, cardBody(CARDS.succeeds));
    expect(
      (await world.api.post(`/payment-plans/${plan.id}/deposit`, { payment_method: foreign.id })).body.error,
    ).toMatchObject({
      param: 'payment_method',
      code: 'payment_method_not_attached',
    });

    const card = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
    const continued = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/deposit`, { payment_method: card.id }),
      200,
    );
    expect(continued).toMatchObject({
      status: 'active',
      payment_method: card.id,
      deposit: { status: 'paid', attempt: { payment: paymentId, state: 'approved' } },
    });
    const resolved = expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments/${paymentId}`), 200);
    expect(resolved.resolution).toMatchObject({
      outcome: 'approved',
      payment_method: card.id,
      external: false,
      source: 'api',
    });
    expect((await planEvents(world, plan.id)).slice(-1)).toEqual(['activated']);
    expect((await world.api.post(`/payment-plans/${plan.id}/deposit`, { external: true })).body.error.code).toBe(
      'no_deposit_attempt',
    );
  });

  it('lost: the payment goes resolving; the resolveDeposit signal with the known outcome continues it', async () => {
    const { terminal, plan, paymentId } = await depositWaiting();
    // The terminal's processor has no record of the sale either: the outcome must come from the caller.
    const payment = expectStatus(await present(terminal.id, { outcome: 'lost', processor_outcome: 'unknown' }), 200);
    expect(payment).toMatchObject({ status: 'processing', terminal: { state: 'resolving' }, transaction: null });
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'pending',
      deposit: { status: 'action_required', attempt: { state: 'resolving' } },
    });
    expect(expectStatus(await world.api.get(`/terminals/${terminal.id}`), 200).status).toBe('idle');
    expect((await world.api.post(`/payment-plans/${plan.id}/deposit`, {})).body.error).toMatchObject({
      param: 'outcome',
      code: 'parameter_missing',
    });

    // What support sends from the Web UI or the CLI.
    const handle = world.env.client.workflow.getHandle(paymentPlanWorkflowId(plan.id));
    await handle.signal(PAYMENT_PLAN_SIGNALS.resolveDeposit, {
      outcome: 'approved',
      external: true,
      request_id: 'support-ticket-77',
    });
    const state = await eventually(
      () => workflowState(world.env, plan.id),
      (value) => value.requests.some((request) => request.request_id === 'support-ticket-77'),
    );
    expect(state.requests.at(-1)).toMatchObject({
      signal: 'resolveDeposit',
      applied: true,
      payment_id: paymentId,
      terminal_state: 'approved',
    });
    expect(state.status).toBe('active');
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'active',
      payment_method: null,
      deposit: { status: 'paid' },
    });
    const resolved = expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments/${paymentId}`), 200);
    expect(resolved).toMatchObject({
      status: 'succeeded',
      terminal: { state: 'approved' },
      resolution: { outcome: 'approved', external: true, source: 'signal' },
    });

    // A second resolution is refused and recorded as such.
    await handle.signal(PAYMENT_PLAN_SIGNALS.resolveDeposit, { outcome: 'declined', request_id: 'support-ticket-78' });
    const refused = await eventually(
      () => workflowState(world.env, plan.id),
      (value) => value.requests.some((request) => request.request_id === 'support-ticket-78'),
    );
    expect(refused.requests.at(-1)).toMatchObject({ applied: false, code: 'no_deposit_attempt' });
  });

  it('lost, then declined through POST /deposit: the deposit is unpaid again', async () => {
    const { terminal, plan } = await depositWaiting();
    expectStatus(await present(terminal.id, { outcome: 'lost' }), 200);
    const continued = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/deposit`, { outcome: 'declined' }),
      200,
    );
    expect(continued).toMatchObject({
      status: 'pending',
      deposit: { status: 'unpaid', attempt: { state: 'declined' } },
    });
    expect((await installmentsOf(world.api, plan.id))[0]).toMatchObject({ status: 'scheduled', payment: null });
  });

  it("lost: POST /deposit without an outcome continues the deposit with the outcome the terminal's processor recorded", async () => {
    const approved = await depositWaiting();
    expectStatus(await present(approved.terminal.id, { outcome: 'lost' }), 200);
    const continued = expectStatus(
      await world.api.post(`/payment-plans/${approved.plan.id}/deposit`, { external: true }),
      200,
    );
    expect(continued).toMatchObject({
      status: 'active',
      payment_method: null,
      deposit: { status: 'paid', attempt: { state: 'approved' } },
    });
    const payment = expectStatus(
      await world.api.get(`/payment-plans/${approved.plan.id}/payments/${approved.paymentId}`),
      200,
    );
    expect(payment).toMatchObject({
      status: 'succeeded',
      resolution: { outcome: 'approved', external: true, source: 'api' },
    });

    // Approved by the processor, nothing else given: charged, no card kept (as `outcome: approved` alone).
    const noCard = await depositWaiting();
    expectStatus(await present(noCard.terminal.id, { outcome: 'lost' }), 200);
    expect(expectStatus(await world.api.post(`/payment-plans/${noCard.plan.id}/deposit`, {}), 200)).toMatchObject({
      deposit: { status: 'action_required', attempt: { state: 'approved_no_credential' } },
    });

    const declined = await depositWaiting();
    expectStatus(await present(declined.terminal.id, { outcome: 'lost', processor_outcome: 'declined' }), 200);
    // payment_method goes only with an approved outcome, the processor's included.
    expect(
      (await world.api.post(`/payment-plans/${declined.plan.id}/deposit`, { external: true })).body.error,
    ).toMatchObject({ param: 'external' });
    const unpaid = expectStatus(await world.api.post(`/payment-plans/${declined.plan.id}/deposit`, {}), 200);
    expect(unpaid).toMatchObject({ status: 'pending', deposit: { status: 'unpaid', attempt: { state: 'declined' } } });

    // An outcome given by the caller still wins over the processor's.
    const given = await depositWaiting();
    expectStatus(await present(given.terminal.id, { outcome: 'lost', processor_outcome: 'approved' }), 200);
    expect(
      expectStatus(await world.api.post(`/payment-plans/${given.plan.id}/deposit`, { outcome: 'declined' }), 200),
    ).toMatchObject({
      deposit: { status: 'unpaid', attempt: { state: 'declined' } },
    });
  });

  it('cancel: 202 asks the terminal; the attempt ends cancelled when the terminal reports it', async () => {
    const { terminal, plan, paymentId } = await depositWaiting();
    const asked = expectStatus(await world.api.post(`/payment-plans/${plan.id}/deposit/cancel`), 202);
    expect(asked).toMatchObject({
      status: 'pending',
      deposit: { status: 'processing', attempt: { payment: paymentId, state: 'waiting', cancel_requested: true } },
    });
    expect(expectStatus(await world.api.get(`/terminals/${terminal.id}`), 200)).toMatchObject({
      status: 'busy',
      current_sale: { cancel_requested: true },
    });

    const reported = expectStatus(await world.api.post(`/test-helpers/terminals/${terminal.id}/report-cancel`), 200);
    expect(reported).toMatchObject({
      id: paymentId,
      status: 'canceled',
      terminal: { state: 'cancelled', cancel_requested: true },
    });
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'pending',
      deposit: { status: 'unpaid', attempt: { state: 'cancelled' } },
    });
    expect(expectStatus(await world.api.get(`/terminals/${terminal.id}`), 200).status).toBe('idle');
    expect((await world.api.post(`/payment-plans/${plan.id}/deposit/cancel`)).body.error.code).toBe(
      'no_deposit_attempt',
    );
  });
});

describe('terminal payments (POST /payment-plans/{id}/payments)', () => {
  async function activePlan() {
    const customer = await createCustomer(world.api);
    const plan = expectStatus(
      await world.api.post('/payment-plans', {
        customer: customer.id,
        total_amount: 600,
        currency: 'USD',
        installments_count: 3,
        interval: 'month',
      }),
      201,
    );
    expectStatus(await world.api.post(`/payment-plans/${plan.id}/payments`, { external: true }), 201);
    return { customer, plan };
  }

  it('takes the next installment on a terminal; a busy terminal is refused; /resolve continues a waiting sale', async () => {
    const { plan } = await activePlan();
    const terminal = await createTerminal(world.api);
    const payment = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: { type: 'terminal', terminal: terminal.id },
      }),
      201,
    );
    expect(payment).toMatchObject({
      method: 'terminal',
      status: 'processing',
      deposit: false,
      installments: [2],
      amount: 200,
      terminal: { id: terminal.id, state: 'waiting' },
    });

    const other = await activePlan();
    const busy = await world.api.post(`/payment-plans/${other.plan.id}/payments`, {
      payment_method: { type: 'terminal', terminal: terminal.id },
    });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('terminal_busy');

    // Installment 2 is held by the sale: an external payment meanwhile pays installment 3.
    const ahead = expectStatus(await world.api.post(`/payment-plans/${plan.id}/payments`, { external: true }), 201);
    expect(ahead.installments).toEqual([3]);

    expect(
      (await world.api.post(`/payment-plans/${plan.id}/payments/${payment.id}/resolve`, {})).body.error.param,
    ).toBe('outcome');
    const resolved = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments/${payment.id}/resolve`, {
        outcome: 'approved',
        external: true,
      }),
      200,
    );
    expect(resolved).toMatchObject({
      status: 'succeeded',
      terminal: { state: 'approved' },
      resolution: { outcome: 'approved', source: 'api' },
    });
    expect(expectStatus(await world.api.get(`/terminals/${terminal.id}`), 200).status).toBe('idle');
    expect(await getPlan(world.api, plan.id)).toMatchObject({ status: 'completed', amount_paid: 600 });
    expect(
      (await world.api.post(`/payment-plans/${plan.id}/payments/${payment.id}/resolve`, { outcome: 'approved' })).body
        .error.code,
    ).toBe('payment_not_resolvable');
  });

  it('cancel answers 202 with the payment; a card presented before the terminal cancels still wins', async () => {
    const { plan } = await activePlan();
    const terminal = await createTerminal(world.api);
    const payment = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: { type: 'terminal', terminal: terminal.id },
      }),
      201,
    );
    const asked = expectStatus(await world.api.post(`/payment-plans/${plan.id}/payments/${payment.id}/cancel`), 202);
    expect(asked).toMatchObject({
      id: payment.id,
      status: 'processing',
      terminal: { state: 'waiting', cancel_requested: true },
    });
    const approved = expectStatus(await present(terminal.id, { outcome: 'approved' }), 200);
    expect(approved).toMatchObject({ status: 'succeeded', terminal: { state: 'approved' } });
    // The plan had no card: the one approved on the terminal becomes its card.
    expect((await getPlan(world.api, plan.id)).payment_method).toBe(approved.payment_method);
    expect((await world.api.post(`/payment-plans/${plan.id}/payments/${payment.id}/cancel`)).body.error.code).toBe(
      'payment_not_waiting',
    );
  });

  it('lost then resolved declined frees the installment; approved_no_credential on a payment is continued with /resolve', async () => {
    const { plan } = await activePlan();
    const terminal = await createTerminal(world.api);
    const first = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: { type: 'terminal', terminal: terminal.id },
      }),
      201,
    );
    expectStatus(await present(terminal.id, { outcome: 'lost' }), 200);
    expect(
      expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments/${first.id}`), 200).terminal.state,
    ).toBe('resolving');
    const declined = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments/${first.id}/resolve`, { outcome: 'declined' }),
      200,
    );
    expect(declined).toMatchObject({ status: 'failed', terminal: { state: 'declined' } });

    const second = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: { type: 'terminal', terminal: terminal.id },
      }),
      201,
    );
    expect(second.installments).toEqual([2]);
    expectStatus(await present(terminal.id, { outcome: 'approved_no_credential' }), 200);
    expect((await getPlan(world.api, plan.id)).status).toBe('active');
    const continued = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments/${second.id}/resolve`, { external: true }),
      200,
    );
    expect(continued).toMatchObject({
      status: 'succeeded',
      terminal: { state: 'approved' },
      resolution: { external: true },
    });
  });

  it("lost: /resolve without an outcome continues the payment with the outcome the terminal's processor recorded", async () => {
    const { plan } = await activePlan();
    const terminal = await createTerminal(world.api);
    const lost = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: { type: 'terminal', terminal: terminal.id },
      }),
      201,
    );
    expectStatus(await present(terminal.id, { outcome: 'lost', processor_outcome: 'declined' }), 200);
    const declined = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments/${lost.id}/resolve`, {}),
      200,
    );
    expect(declined).toMatchObject({
      status: 'failed',
      terminal: { state: 'declined' },
      resolution: { outcome: 'declined', source: 'api' },
    });

    const again = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: { type: 'terminal', terminal: terminal.id },
      }),
      201,
    );
    expectStatus(await present(terminal.id, { outcome: 'lost' }), 200);
    const approved = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments/${again.id}/resolve`, { external: true }),
      200,
    );
    expect(approved).toMatchObject({
      status: 'succeeded',
      terminal: { state: 'approved' },
      resolution: { outcome: 'approved', external: true },
    });

    const unknown = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: { type: 'terminal', terminal: terminal.id },
      }),
      201,
    );
    expectStatus(await present(terminal.id, { outcome: 'lost', processor_outcome: 'unknown' }), 200);
    expect(
      (await world.api.post(`/payment-plans/${plan.id}/payments/${unknown.id}/resolve`, {})).body.error,
    ).toMatchObject({ param: 'outcome', code: 'parameter_missing' });
  });

  it('after the plan is canceled, a sale left resolving can still be resolved (the workflow has ended)', async () => {
    const { plan } = await activePlan();
    const terminal = await createTerminal(world.api);
    const lost = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: { type: 'terminal', terminal: terminal.id },
      }),
      201,
    );
    const ahead = expectStatus(await world.api.post(`/payment-plans/${plan.id}/payments`, { external: true }), 201);
    expect(ahead.installments).toEqual([3]);
    expectStatus(await present(terminal.id, { outcome: 'lost' }), 200);

    expectStatus(await world.api.post(`/payment-plans/${plan.id}/cancel`), 200);
    await world.env.client.workflow.getHandle(paymentPlanWorkflowId(plan.id)).result();
    const resolved = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments/${lost.id}/resolve`, {
        outcome: 'approved',
        external: true,
      }),
      200,
    );
    // The card was taken for a plan canceled meanwhile: given back at once, nothing paid.
    expect(resolved).toMatchObject({
      status: 'refunded',
      amount: 200,
      amount_refunded: 200,
      terminal: { state: 'approved' },
    });
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'canceled',
      amount_paid: 400,
      amount_refunded: 200,
    });
    expect((await installmentsOf(world.api, plan.id)).map((row: any) => row.status)).toEqual([
      'paid',
      'canceled',
      'paid',
    ]);
    const refund = await world.app.prisma.transaction.findFirstOrThrow({
      where: { sourceTransactionId: resolved.transaction },
    });
    expect(refund).toMatchObject({
      type: 'refund',
      status: 'succeeded',
      amount: -200n,
      gatewayReference: resolved.terminal.sale,
    });
    expect((await planEvents(world, plan.id)).slice(-2)).toEqual(['canceled', 'payment_refunded']);
  });

  it('canceling a plan asks the terminal to cancel the sale waiting for it', async () => {
    const { plan } = await activePlan();
    const terminal = await createTerminal(world.api);
    const payment = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: { type: 'terminal', terminal: terminal.id },
      }),
      201,
    );
    expectStatus(await world.api.post(`/payment-plans/${plan.id}/cancel`), 200);
    expect(
      expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments/${payment.id}`), 200).terminal,
    ).toMatchObject({ state: 'waiting', cancel_requested: true });
    expectStatus(await world.api.post(`/test-helpers/terminals/${terminal.id}/report-cancel`), 200);
    expect(expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments/${payment.id}`), 200)).toMatchObject({
      status: 'canceled',
      terminal: { state: 'cancelled' },
    });
  });
});

describe('money on a canceled plan', () => {
  it('a deposit approved on the terminal after the plan was canceled is refunded at once; the plan keeps nothing', async () => {
    const { terminal, plan, paymentId } = await depositWaiting();
    expect(expectStatus(await world.api.post(`/payment-plans/${plan.id}/cancel`), 200).status).toBe('canceled');
    const payment = expectStatus(await present(terminal.id, { outcome: 'approved' }), 200);
    expect(payment).toMatchObject({
      id: paymentId,
      status: 'refunded',
      amount: 100,
      amount_refunded: 100,
      terminal: { state: 'approved' },
    });

    const after = await getPlan(world.api, plan.id);
    expect(after).toMatchObject({
      status: 'canceled',
      amount_paid: 0,
      amount_refunded: 100,
      installments_paid: 0,
      payment_method: null,
    });
    expect((await installmentsOf(world.api, plan.id)).map((row: any) => row.status)).toEqual([
      'canceled',
      'canceled',
      'canceled',
    ]);
    const rows = await world.app.prisma.transaction.findMany({
      where: { accountId: world.accountId, customerId: plan.customer },
      orderBy: { createdAt: 'asc' },
    });
    expect(rows.map((row) => [row.type, row.status, Number(row.amount)])).toEqual([
      ['payment', 'succeeded', 100],
      ['refund', 'succeeded', -100],
    ]);
    expect(rows[1]!.sourceTransactionId).toBe(rows[0]!.id);
    expect(await planEvents(world, plan.id)).toEqual(['created', 'canceled', 'payment_refunded']);
    const event = (await eventsOf(world.app.prisma, world.accountId, 'payment_plan.payment_refunded')).find(
      (row) => (row.data as any).id === plan.id,
    )!;
    expect(event.data).toMatchObject({
      status: 'canceled',
      amount_paid: 0,
      amount_refunded: 100,
      payment: { id: paymentId, status: 'refunded', amount_refunded: 100 },
    });
  });
});

describe('money on a canceled plan: a stored-method charge racing the cancellation', () => {
  it('is settled by the cancel (same key, one charge) and kept: it came first, so nothing is refunded (decisions.md §9)', async () => {
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
    expectStatus(await world.api.post(`/payment-plans/${plan.id}/payments`, { external: true }), 201);
    // The gateway charges, then the answer is lost: the payment stays processing.
    const losesAnswer = wrappedGateways(world.app.prisma, (real) => ({
      charge: async (request) => {
        await real.charge(request);
        throw new Error('connection reset');
      },
    }));
    await expect(
      chargeStoredMethod(world.app.prisma, losesAnswer, world.accountId, plan.id, { paymentMethodId: card.id }),
    ).rejects.toMatchObject({ status: 502 });
    expectStatus(await world.api.post(`/payment-plans/${plan.id}/cancel`), 200);

    const payments = expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments`), 200).data;
    const charge = payments.find((row: any) => row.method === 'payment_method');
    expect(charge).toMatchObject({ status: 'succeeded', amount: 100, amount_refunded: 0 });
    expect(await world.app.prisma.transaction.count({ where: { sourceTransactionId: charge.transaction } })).toBe(0);
    expect(await world.app.prisma.gatewayCharge.count({ where: { paymentMethodId: card.id, kind: 'charge' } })).toBe(1);
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'canceled',
      amount_paid: 200,
      amount_refunded: 0,
    });
    expect((await installmentsOf(world.api, plan.id)).map((row: any) => row.status)).toEqual([
      'paid',
      'paid',
      'canceled',
    ]);
    expect((await planEvents(world, plan.id)).slice(-3)).toEqual(['payment_succeeded', 'installment_paid', 'canceled']);
    // Asked after the cancel, a payment is refused.
    expect(
      (await world.api.post(`/payment-plans/${plan.id}/payments`, { payment_method: card.id })).body.error.code,
    ).toBe('payment_plan_closed');
  });
});

describe('POST /payment-plans/{id}/payments/{payment_id}/refund', () => {
  it('refunds a stored-method charge at the gateway, partly then fully, idempotently', async () => {
    const customer = await createCustomer(world.api);
    const card = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
    const plan = expectStatus(
      await world.api.post('/payment-plans', {
        customer: customer.id,
        total_amount: 300,
        currency: 'USD',
        installments_count: 3,
        interval: 'month',
        payment_method: card.id,
      }),
      201,
    );
    await eventually(
      () => getPlan(world.api, plan.id),
      (value) => value.status === 'active',
    );
    const payment = expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments`), 200).data[0];
    expect(payment).toMatchObject({ method: 'automatic', status: 'succeeded', amount: 100, amount_refunded: 0 });
    const path = `/payment-plans/${plan.id}/payments/${payment.id}/refund`;

    expect((await world.api.post(path, { amount: 101 })).body.error).toMatchObject({
      param: 'amount',
      type: 'invalid_request_error',
    });
    expect((await world.api.post(path, { amount: 0 })).body.error.param).toBe('amount');
    expect((await world.api.post(path, { amount: 100_000_000 })).body.error.param).toBe('amount');
    expect((await world.api.post(path, { amount: 1.5 })).body.error.param).toBe('amount');

    const partial = expectStatus(await world.api.post(path, { amount: 30 }, { 'Idempotency-Key': 'refund-a' }), 201);
    expect(partial).toMatchObject({
      object: 'transaction',
      type: 'refund',
      status: 'succeeded',
      amount: -30,
      source_transaction: payment.transaction,
    });
    expect(partial.gateway_reference).toMatch(/^re_/);
    expect(expectStatus(await world.api.post(path, { amount: 30 }, { 'Idempotency-Key': 'refund-a' }), 201).id).toBe(
      partial.id,
    );
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'active',
      amount_paid: 100,
      amount_refunded: 30,
    });

    const rest = expectStatus(await world.api.post(path, {}), 201);
    expect(rest).toMatchObject({ type: 'refund', status: 'succeeded', amount: -70 });
    expect(expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments/${payment.id}`), 200)).toMatchObject({
      status: 'refunded',
      amount_refunded: 100,
    });
    expect((await world.api.post(path, {})).status).toBe(409);
    const refunds = await world.app.prisma.transaction.findMany({
      where: { sourceTransactionId: payment.transaction },
    });
    expect(refunds.map((row) => Number(row.amount)).sort((a, b) => a - b)).toEqual([-70, -30]);
    expect((await planEvents(world, plan.id)).filter((type) => type === 'payment_refunded')).toHaveLength(2);
  });

  it("refunds a terminal sale against its transaction; an external payment and another account's payment are refused", async () => {
    const { terminal, plan, paymentId } = await depositWaiting();
    const sale = expectStatus(await present(terminal.id, { outcome: 'approved' }), 200);
    const refund = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments/${paymentId}/refund`, { amount: 40 }),
      201,
    );
    expect(refund).toMatchObject({
      type: 'refund',
      status: 'succeeded',
      amount: -40,
      source_transaction: sale.transaction,
      gateway_reference: sale.terminal.sale,
    });
    expect(expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments/${paymentId}`), 200)).toMatchObject({
      status: 'succeeded',
      amount_refunded: 40,
    });
    // A refund gives money back; the installment it paid stays paid.
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'active',
      amount_paid: 100,
      amount_refunded: 40,
    });

    const external = expectStatus(await world.api.post(`/payment-plans/${plan.id}/payments`, { external: true }), 201);
    const refused = await world.api.post(`/payment-plans/${plan.id}/payments/${external.id}/refund`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('payment_not_refundable');

    const other = await createTestAccount(world.app.prisma, { paymentPlans: true });
    const otherApi = apiClient(world.app.baseUrl, other.apiKey);
    expect((await otherApi.post(`/payment-plans/${plan.id}/payments/${paymentId}/refund`, {})).status).toBe(404);
    expect(
      expectStatus(await world.api.get(`/payment-plans/${plan.id}/payments/${paymentId}`), 200).amount_refunded,
    ).toBe(40);
  });
});

describe('an approved terminal payment on a plan that has a card', () => {
  it('resolved approved, or approved without a credential, it is approved: nothing is left to continue', async () => {
    const customer = await createCustomer(world.api);
    const card = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
    const plan = expectStatus(
      await world.api.post('/payment-plans', {
        customer: customer.id,
        total_amount: 400,
        currency: 'USD',
        installments_count: 4,
        interval: 'month',
        payment_method: card.id,
      }),
      201,
    );
    await eventually(
      () => getPlan(world.api, plan.id),
      (value) => value.status === 'active',
    );
    const terminal = await createTerminal(world.api);
    const lost = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: { type: 'terminal', terminal: terminal.id },
      }),
      201,
    );
    expectStatus(await present(terminal.id, { outcome: 'lost' }), 200);
    const resolved = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments/${lost.id}/resolve`, { outcome: 'approved' }),
      200,
    );
    expect(resolved).toMatchObject({ status: 'succeeded', terminal: { state: 'approved' } });

    const second = expectStatus(
      await world.api.post(`/payment-plans/${plan.id}/payments`, {
        payment_method: { type: 'terminal', terminal: terminal.id },
      }),
      201,
    );
    const noCredential = expectStatus(await present(terminal.id, { outcome: 'approved_no_credential' }), 200);
    expect(noCredential).toMatchObject({ id: second.id, status: 'succeeded', terminal: { state: 'approved' } });
    expect(await getPlan(world.api, plan.id)).toMatchObject({
      status: 'active',
      payment_method: card.id,
      installments_paid: 3,
    });
    const open = await world.app.prisma.paymentPlanPayment.count({
      where: { planId: plan.id, terminalState: { in: ['waiting', 'resolving', 'approved_no_credential'] } },
    });
    expect(open).toBe(0);
  });
});

describe('events carry the plan after the change', () => {
  it('payment_succeeded of an approved deposit shows the deposit paid and the plan active', async () => {
    const { terminal, plan, paymentId } = await depositWaiting();
    expectStatus(await present(terminal.id, { outcome: 'approved' }), 200);
    const events = (await eventsOf(world.app.prisma, world.accountId)).filter(
      (row) => (row.data as any).id === plan.id,
    );
    expect(events.map((row) => row.type)).toEqual([
      'payment_plan.created',
      'payment_plan.payment_succeeded',
      'payment_plan.installment_paid',
      'payment_plan.activated',
    ]);
    expect(events[1]!.data).toMatchObject({
      status: 'active',
      amount_paid: 100,
      installments_paid: 1,
      payment: { id: paymentId, status: 'succeeded' },
    });
    expect(events[2]!.data).toMatchObject({
      status: 'active',
      amount_paid: 100,
      installment: { number: 1, status: 'paid' },
    });
    // Each event is its own version of the plan: updated_ms orders them.
    const versions = events.map((row) => (row.data as { updated_ms: number }).updated_ms);
    for (let index = 1; index < versions.length; index += 1)
      expect(versions[index]!).toBeGreaterThan(versions[index - 1]!);
    expect((await getPlan(world.api, plan.id)).updated_ms).toBe(versions.at(-1));
  });
});

describe('payment-plan updates', () => {
  it('a bad argument is refused by the validator, naming the field; the workflow carries on and answers good ones', async () => {
    const { plan, paymentId } = await depositWaiting();
    const handle = world.env.client.workflow.getHandle(paymentPlanWorkflowId(plan.id));
    const refusal = async (name: string, args: unknown) => {
      const error = await handle.executeUpdate(name, { args: [args] }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
      const cause = (error as WorkflowUpdateFailedError).cause as ApplicationFailure;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect(cause.type).toBe(REQUEST_REFUSED_FAILURE);
      return cause.details?.[0];
    };
    expect(await refusal('resolveTerminalPayment', { payment_id: paymentId, outcome: 'maybe' })).toMatchObject({
      param: 'outcome',
      code: 'parameter_invalid',
    });
    expect(await refusal('resolveTerminalPayment', { outcome: 'approved' })).toMatchObject({
      param: 'payment_id',
      code: 'parameter_missing',
    });
    expect(await refusal('resolveDeposit', { outcome: 'approved', outcom: 'x' })).toMatchObject({
      param: 'outcom',
      code: 'parameter_unknown',
    });
    expect(
      await refusal('resolveDeposit', { outcome: 'approved', payment_method: 'pm_abc', external: true }),
    ).toMatchObject({ param: 'external' });
    expect(await refusal('cancelPlan', 'now')).toMatchObject({ code: 'parameter_invalid' });
    expect(await refusal('cancelPlan', { reason: 42 })).toMatchObject({ param: 'reason' });

    // Nothing reached the history; the workflow runs on and answers a request it cannot apply, and one it can.
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect((await workflowState(world.env, plan.id)).requests).toEqual([]);
    // Carried out and refused by the workflow: the update fails too (the Web UI shows it failed), its record the failure's detail.
    const notNow = await refusal('resolveDeposit', {});
    expect(notNow).toMatchObject({
      applied: false,
      code: 'parameter_missing',
      param: 'outcome',
      signal: 'resolveDeposit',
    });
    expect((await workflowState(world.env, plan.id)).requests.at(-1)).toMatchObject({
      applied: false,
      signal: 'resolveDeposit',
    });
    // The API answers the same refusal as before: 400 naming the field.
    const viaApi = await world.api.post(`/payment-plans/${plan.id}/deposit`, {});
    expect(viaApi.status).toBe(400);
    expect(viaApi.body.error).toMatchObject({ code: 'parameter_missing', param: 'outcome' });
    const done = await handle.executeUpdate<any, [object]>('resolveDeposit', {
      args: [{ outcome: 'declined', request_id: 'ticket-9' }],
    });
    expect(done).toMatchObject({
      applied: true,
      request_id: 'ticket-9',
      payment_id: paymentId,
      terminal_state: 'declined',
    });
    expect((await handle.describe()).status.name).toBe('RUNNING');
  });

  it('the older signals are checked at arrival: a bad argument is recorded refused in the state query, never queued', async () => {
    const { plan } = await depositWaiting();
    const handle = world.env.client.workflow.getHandle(paymentPlanWorkflowId(plan.id));
    await handle.signal('resolveTerminalPayment', { outcome: 'maybe' });
    await handle.signal('planUpdated', { unexpected: true });
    const requests = await eventually(
      async () => (await workflowState(world.env, plan.id)).requests,
      (rows) => rows.length > 0,
    );
    expect(requests).toEqual([
      expect.objectContaining({
        signal: 'resolveTerminalPayment',
        applied: false,
        code: 'parameter_missing',
        param: 'payment_id',
      }),
    ]);
    expect((await handle.describe()).status.name).toBe('RUNNING');
  });
});

describe('GET /terminal-payments', () => {
  it("lists the account's terminal payments not settled yet, oldest first, with customer and terminal; never another account's", async () => {
    const waiting = await depositWaiting();
    const lost = await depositWaiting();
    expectStatus(await present(lost.terminal.id, { outcome: 'lost', processor_outcome: 'unknown' }), 200);
    const settled = await depositWaiting();
    expectStatus(await present(settled.terminal.id, { outcome: 'approved' }), 200);

    const other = await createTestAccount(world.app.prisma, { paymentPlans: true });
    const otherApi = apiClient(world.app.baseUrl, other.apiKey);
    const otherCustomer = await createCustomer(otherApi);
    const otherTerminal = await createTerminal(otherApi);
    const otherPlan = expectStatus(
      await otherApi.post('/payment-plans', {
        customer: otherCustomer.id,
        total_amount: 300,
        currency: 'USD',
        installments_count: 3,
        interval: 'month',
      }),
      201,
    );
    expectStatus(
      await otherApi.post(`/payment-plans/${otherPlan.id}/deposit/terminal`, { terminal: otherTerminal.id }),
      202,
    );

    const listed = expectStatus(await world.api.get('/terminal-payments'), 200).data as any[];
    const ids = listed.map((row) => row.payment.id);
    expect(ids).toEqual(expect.arrayContaining([waiting.paymentId, lost.paymentId]));
    expect(ids).not.toContain(settled.paymentId);
    expect(listed.every((row) => row.payment.customer !== otherCustomer.id)).toBe(true);
    expect(ids.indexOf(waiting.paymentId)).toBeLessThan(ids.indexOf(lost.paymentId));
    expect(listed.find((row) => row.payment.id === lost.paymentId)).toMatchObject({
      payment: { plan: lost.plan.id, deposit: true, terminal: { state: 'resolving' } },
      customer_name: lost.customer.name,
      terminal_label: lost.terminal.label,
    });
    expect(listed.find((row) => row.payment.id === lost.paymentId).since).toEqual(expect.any(Number));
    // Nothing has waited a day yet.
    expect(expectStatus(await world.api.get('/terminal-payments?older_than_minutes=1440'), 200).data).toEqual([]);
    expect((await otherApi.get('/terminal-payments')).body.data.map((row: any) => row.payment.plan)).toEqual([
      otherPlan.id,
    ]);

    for (const bad of ['-1', '1.5', 'x', '525601'])
      expect((await world.api.get(`/terminal-payments?older_than_minutes=${bad}`)).body.error).toMatchObject({
        param: 'older_than_minutes',
      });
    expect((await world.api.get('/terminal-payments?state=waiting')).body.error).toMatchObject({
      code: 'parameter_unknown',
      param: 'state',
    });
    const withoutPlans = await createTestAccount(world.app.prisma);
    expect((await apiClient(world.app.baseUrl, withoutPlans.apiKey).get('/terminal-payments')).status).toBe(403);
  });
});
