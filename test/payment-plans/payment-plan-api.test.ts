import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { testModeEnabled } from '../../src/lib/test-mode';
import { apiClient, createTestAccount, type ApiClient } from '../support/harness';
import { expectCursorWalk } from '../support/cursor-lists';
import { newId } from '../../src/lib/ids';
import { CARDS, addPaymentMethod, cardBody, createCustomer, gatewayCharges, heldGateways } from '../support/payments';
import { terminateWhenIdle } from '../support/temporal';
import { createPrisma } from '../../src/db/prisma';
import {
  createTerminal,
  expectStatus,
  installmentsOf,
  planHasStatus,
  startPlanWorld,
  type PlanWorld,
} from '../support/payment-plans';
import { paymentPlanWorkflowId } from '../../workflows/payment-plan-contract';

let world: PlanWorld;
let api: ApiClient;
let customerId: string;

beforeAll(async () => {
  world = await startPlanWorld();
  api = world.api;
  customerId = (await createCustomer(api)).id;
});
afterAll(() => world.close());

const body = (extra: Record<string, unknown> = {}) => ({
  customer: customerId,
  total_amount: 1000,
  currency: 'USD',
  installments_count: 4,
  interval: 'month',
  ...extra,
});

describe('POST /payment-plans validation', () => {
  it.each([
    [{ total_amount: 1, installments_count: 2 }, 'total_amount', 'parameter_invalid'],
    [{ total_amount: 59, installments_count: 60 }, 'total_amount', 'parameter_invalid'],
    [{ total_amount: 100_000_000 }, 'total_amount', 'parameter_invalid'],
    [{ total_amount: 10.5 }, 'total_amount', 'parameter_invalid'],
    [{ total_amount: '1000' }, 'total_amount', 'parameter_invalid'],
    [{ total_amount: undefined }, 'total_amount', 'parameter_missing'],
    [{ installments_count: 1 }, 'installments_count', 'parameter_invalid'],
    [{ installments_count: 61 }, 'installments_count', 'parameter_invalid'],
    [{ interval: 'day' }, 'interval', 'parameter_invalid'],
    [{ interval_count: 0 }, 'interval_count', 'parameter_invalid'],
    [{ interval_count: 13 }, 'interval_count', 'parameter_invalid'],
    [{ currency: 'XYZ' }, 'currency', 'parameter_invalid'],
    [{ customer: undefined }, 'customer', 'parameter_missing'],
    [{ customer: 'not an id' }, 'customer', 'parameter_invalid'],
    [{ start_date: 1 }, 'start_date', 'parameter_invalid'],
    [{ start_date: Math.floor(Date.now() / 1000) + 400 * 86_400 }, 'start_date', 'parameter_invalid'],
    [{ payment_method: 'card_1' }, 'payment_method', 'parameter_invalid'],
    [{ deposit: 100 }, 'deposit', 'parameter_unknown'],
  ])('%j -> 400 naming %s', async (extra, param, code) => {
    const response = await api.post('/payment-plans', body(extra));
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param, code });
  });

  it('1 cent cannot be split into 2 or more non-zero installments', async () => {
    const response = await api.post('/payment-plans', body({ total_amount: 1, installments_count: 2 }));
    expect(response.body.error.message).toMatch(/at least installments_count \(2\)/);
    expect(await world.app.prisma.paymentPlan.count({ where: { accountId: world.accountId, totalAmount: 1n } })).toBe(
      0,
    );
  });

  it('refuses a payment method of another customer (400) and an unknown customer (404)', async () => {
    const stranger = await createCustomer(api);
    const card = await addPaymentMethod(api, stranger.id, cardBody(CARDS.succeeds));
    expect((await api.post('/payment-plans', body({ payment_method: card.id }))).body.error).toMatchObject({
      param: 'payment_method',
      code: 'payment_method_not_attached',
    });
    const unknown = await api.post('/payment-plans', body({ customer: 'cus_doesnotexist' }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('customer');
  });
});

describe('installment amounts add up to the total', () => {
  it.each([
    [100, 3, [34, 33, 33]],
    [2, 2, [1, 1]],
    [99_999_999, 60, null],
    [99_999_999, 7, null],
  ])('%i cents over %i', async (total, count, expected) => {
    const plan = expectStatus(
      await api.post('/payment-plans', body({ total_amount: total, installments_count: count, interval: 'week' })),
      201,
    );
    const installments = await installmentsOf(api, plan.id);
    const amounts = installments.map((row: any) => row.amount);
    expect(amounts).toHaveLength(count);
    expect(amounts.reduce((a: number, b: number) => a + b, 0)).toBe(total);
    if (expected) expect(amounts).toEqual(expected);
    expect(Math.max(...amounts) - Math.min(...amounts)).toBeLessThanOrEqual(1);
    expect(amounts[0]).toBe(Math.max(...amounts));
    expect(plan).toMatchObject({
      total_amount: total,
      amount_remaining: total,
      amount_paid: 0,
      deposit: { amount: amounts[0] },
    });
  });

  it('due dates follow start_date and the interval', async () => {
    const start = Math.floor(Date.now() / 1000) + 3 * 86_400;
    const plan = expectStatus(
      await api.post(
        '/payment-plans',
        body({ start_date: start, interval: 'week', interval_count: 2, installments_count: 3 }),
      ),
      201,
    );
    expect(plan.start_date).toBe(start);
    const installments = await installmentsOf(api, plan.id);
    expect(installments.map((row: any) => row.due_date)).toEqual([start, start + 14 * 86_400, start + 28 * 86_400]);
    expect(installments[0]).toMatchObject({
      object: 'payment_plan_installment',
      plan: plan.id,
      number: 1,
      currency: 'USD',
      status: 'scheduled',
      payment: null,
    });
  });
});

describe('GET /payment-plans', () => {
  it('lists newest first, filtered by customer and status, paginated', async () => {
    const customer = await createCustomer(api, 'Filter Person');
    const first = expectStatus(await api.post('/payment-plans', body({ customer: customer.id })), 201);
    const second = expectStatus(await api.post('/payment-plans', body({ customer: customer.id })), 201);
    expectStatus(await api.post(`/payment-plans/${second.id}/payments`, { external: true }), 201);
    await planHasStatus(api, second.id, 'active');

    const mine = expectStatus(await api.get(`/payment-plans?customer=${customer.id}`), 200);
    expect(mine.data.map((plan: any) => plan.id)).toEqual([second.id, first.id]);
    expect(mine.meta).toEqual({ page: 1, take: 10, itemsTotal: 2, pagesTotal: 1 });
    const active = expectStatus(await api.get(`/payment-plans?customer=${customer.id}&status=active`), 200);
    expect(active.data.map((plan: any) => plan.id)).toEqual([second.id]);
    expect(expectStatus(await api.get(`/payment-plans?customer=${customer.id}&take=1&page=2`), 200).data[0].id).toBe(
      first.id,
    );
    expect((await api.get('/payment-plans?status=late')).body.error.param).toBe('status');
    expect((await api.get('/payment-plans?take=101')).body.error.param).toBe('take');
    expect((await api.get('/payment-plans?starting_after=not%20valid')).body.error.param).toBe('starting_after');
    // By cursor too: the same two, one at a time; another account's key cannot use them.
    const other = apiClient(
      world.app.baseUrl,
      (await createTestAccount(world.app.prisma, { name: 'Cursor stranger', paymentPlans: true })).apiKey,
    );
    expect(await expectCursorWalk(api, other, `/payment-plans?customer=${customer.id}`, newId('paymentPlan'))).toEqual([
      second.id,
      first.id,
    ]);
  });
});

describe('POST /payment-plans/{id}/payments validation', () => {
  it('needs a card, external or a terminal, one at a time', async () => {
    const plan = expectStatus(await api.post('/payment-plans', body()), 201);
    const path = `/payment-plans/${plan.id}/payments`;
    expect((await api.post(path, {})).body.error).toMatchObject({
      param: 'payment_method',
      code: 'payment_method_missing',
    });
    expect((await api.post(path, { external: true, payment_method: 'pm_abc' })).body.error.param).toBe('external');
    expect((await api.post(path, { external: false })).body.error.param).toBe('external');
    // external_reference belongs to the external shape (oneOf): what it lacks is external: true.
    expect((await api.post(path, { external_reference: 'x' })).body.error).toMatchObject({
      param: 'external',
      code: 'parameter_missing',
    });
    expect((await api.post(path, { external: true, save_payment_method: true })).body.error.param).toBe(
      'save_payment_method',
    );
    expect((await api.post(path, { payment_method: { type: 'terminal' } })).body.error.param).toBe('payment_method');
    expect((await api.post(path, { payment_method: 'pm_doesnotexist' })).body.error).toMatchObject({
      param: 'payment_method',
      code: 'resource_missing',
    });
    expect(
      (await api.post(path, { payment_method: { type: 'terminal', terminal: 'tml_nope' } })).body.error,
    ).toMatchObject({
      param: 'payment_method.terminal',
    });
    expect(await world.app.prisma.paymentPlanPayment.count({ where: { planId: plan.id } })).toBe(0);
  });

  it('a declined charge answers the failed payment and leaves the installment as it was', async () => {
    const customer = await createCustomer(api);
    const card = await addPaymentMethod(api, customer.id, cardBody(CARDS.declined));
    const plan = expectStatus(await api.post('/payment-plans', body({ customer: customer.id })), 201);
    const payment = expectStatus(
      await api.post(`/payment-plans/${plan.id}/payments`, { payment_method: card.id }),
      201,
    );
    expect(payment).toMatchObject({
      status: 'failed',
      failure_code: 'card_declined',
      deposit: true,
      installments: [1],
    });
    expect((await installmentsOf(api, plan.id))[0]).toMatchObject({ status: 'scheduled', payment: null });
    const transaction = await world.app.prisma.transaction.findUniqueOrThrow({ where: { id: payment.transaction } });
    expect(transaction).toMatchObject({
      type: 'payment',
      status: 'failed',
      gatewayKey: `payment-plan:${plan.id}:payment:${payment.id}`,
    });
  });
});

describe('feature switch', () => {
  it('answers 403 feature_not_enabled to an account without payment plans', async () => {
    const off = apiClient(world.app.baseUrl, (await createTestAccount(world.app.prisma, { name: 'No plans' })).apiKey);
    const customer = await createCustomer(off);
    for (const response of [
      await off.post('/payment-plans', body({ customer: customer.id })),
      await off.get('/payment-plans'),
      await off.get('/payment-plans/pp_anything'),
      await off.get('/payment-plans/pp_anything/installments'),
      await off.post('/payment-plans/pp_anything/cancel'),
      await off.post('/payment-plans/pp_anything/payments', { external: true }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.error).toMatchObject({ type: 'permission_error', code: 'feature_not_enabled' });
    }
    // Terminals are not part of the feature.
    expect((await off.post('/terminals', { label: 'Desk' })).status).toBe(201);
  });
});

describe("another account's resources", () => {
  it('answer 404 everywhere, exactly like unknown ids', async () => {
    const customer = await createCustomer(api);
    const card = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
    const terminal = await createTerminal(api);
    const plan = expectStatus(await api.post('/payment-plans', body({ customer: customer.id })), 201);
    const sent = expectStatus(
      await api.post(`/payment-plans/${plan.id}/deposit/terminal`, { terminal: terminal.id }),
      202,
    );
    const paymentId = sent.deposit.attempt.payment;

    const other = apiClient(
      world.app.baseUrl,
      (await createTestAccount(world.app.prisma, { name: 'Other', paymentPlans: true })).apiKey,
    );
    const otherCustomer = await createCustomer(other);
    const otherTerminal = await createTerminal(other);
    const otherPlan = expectStatus(await other.post('/payment-plans', body({ customer: otherCustomer.id })), 201);
    const p = `/payment-plans/${plan.id}`;
    const attempts: [string, Promise<{ status: number; body: any }>, string][] = [
      ['GET plan', other.get(p), 'id'],
      ['GET installments', other.get(`${p}/installments`), 'id'],
      ['cancel', other.post(`${p}/cancel`), 'id'],
      ['deposit/terminal', other.post(`${p}/deposit/terminal`, { terminal: otherTerminal.id }), 'id'],
      ['deposit', other.post(`${p}/deposit`, { outcome: 'approved' }), 'id'],
      ['deposit/cancel', other.post(`${p}/deposit/cancel`), 'id'],
      ['payments', other.post(`${p}/payments`, { external: true }), 'id'],
      ['list payments', other.get(`${p}/payments`), 'id'],
      ['GET payment', other.get(`${p}/payments/${paymentId}`), 'id'],
      ['GET payment via own plan', other.get(`/payment-plans/${otherPlan.id}/payments/${paymentId}`), 'id'],
      ['resolve', other.post(`${p}/payments/${paymentId}/resolve`, { outcome: 'approved' }), 'id'],
      ['cancel payment', other.post(`${p}/payments/${paymentId}/cancel`), 'id'],
      ['GET terminal', other.get(`/terminals/${terminal.id}`), 'id'],
      [
        'present-card',
        other.post(`/test-helpers/terminals/${terminal.id}/present-card`, { outcome: 'approved' }),
        'id',
      ],
      ['report-cancel', other.post(`/test-helpers/terminals/${terminal.id}/report-cancel`), 'id'],
      ['plan with their customer', other.post('/payment-plans', body({ customer: customer.id })), 'customer'],
      [
        'plan with their card',
        other.post('/payment-plans', body({ customer: otherCustomer.id, payment_method: card.id })),
        'payment_method',
      ],
      [
        'their terminal for my deposit',
        other.post(`/payment-plans/${otherPlan.id}/deposit/terminal`, { terminal: terminal.id }),
        'terminal',
      ],
      [
        'their card for my payment',
        other.post(`/payment-plans/${otherPlan.id}/payments`, { payment_method: card.id }),
        'payment_method',
      ],
    ];
    for (const [what, pending, param] of attempts) {
      const response = await pending;
      expect({ what, status: response.status, param: response.body?.error?.param }).toEqual({
        what,
        status: 404,
        param,
      });
      expect(response.body.error.code).toBe('resource_missing');
    }
    // Nothing moved: the sale still waits on the terminal and the plan is untouched.
    expect(expectStatus(await api.get(`/terminals/${terminal.id}`), 200).status).toBe('busy');
    expect(expectStatus(await api.get(p), 200)).toMatchObject({
      status: 'pending',
      deposit: { attempt: { state: 'waiting' } },
    });
    const unknown = await api.get('/payment-plans/pp_doesnotexist');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('resource_missing');
  });
});

describe('test mode', () => {
  it('is on unless BILLING_TEST_MODE=false or NODE_ENV=production', () => {
    expect(testModeEnabled({})).toBe(true);
    expect(testModeEnabled({ NODE_ENV: 'production' })).toBe(false);
    expect(testModeEnabled({ NODE_ENV: 'production', BILLING_TEST_MODE: 'true' })).toBe(true);
    expect(testModeEnabled({ BILLING_TEST_MODE: 'false' })).toBe(false);
  });

  it('without it the terminal test helpers do not exist', async () => {
    const terminal = await createTerminal(api);
    process.env.BILLING_TEST_MODE = 'false';
    try {
      const server = http.createServer(createApp({ prisma: world.app.prisma, temporal: world.env.client }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const production = apiClient(
        `http://127.0.0.1:${port}`,
        (await createTestAccount(world.app.prisma, { paymentPlans: true })).apiKey,
      );
      const response = await production.post(`/test-helpers/terminals/${terminal.id}/present-card`, {
        outcome: 'approved',
      });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('route_not_found');
      expect((await production.post('/terminals', { label: 'Real one' })).status).toBe(201);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    } finally {
      delete process.env.BILLING_TEST_MODE;
    }
  });
});

describe('POST /payment-plans with Idempotency-Key, after the first request died', () => {
  const stale = (key: string) =>
    world.app.prisma.idempotencyKey.update({
      where: { accountId_key: { accountId: world.accountId, key } },
      data: { state: 'in_progress', responseStatus: null, lockedAt: new Date(Date.now() - 120_000) },
    });
  const plansOfCustomer = () =>
    world.app.prisma.paymentPlan.count({ where: { accountId: world.accountId, customerId } });

  it('after its commit: the retry answers that plan, no second schedule', async () => {
    const key = `plan-${crypto.randomUUID()}`;
    const before = await plansOfCustomer();
    const first = expectStatus(await api.post('/payment-plans', body(), { 'Idempotency-Key': key }), 201);
    await stale(key); // as if the process died before storing the answer
    const retried = await api.post('/payment-plans', body(), { 'Idempotency-Key': key });
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ id: first.id, total_amount: 1000 });
    expect(await plansOfCustomer()).toBe(before + 1);
  });

  it('between the workflow start and the commit: the retry makes the plan under the same id and starts its workflow again', async () => {
    const key = `plan-${crypto.randomUUID()}`;
    const first = expectStatus(await api.post('/payment-plans', body(), { 'Idempotency-Key': key }), 201);
    // As if the transaction had rolled back after the start: no rows, and the run gave up on them.
    const handle = world.env.client.workflow.getHandle(paymentPlanWorkflowId(first.id));
    const gone = (await handle.describe()).runId;
    await terminateWhenIdle(handle, 'test: the creation rolled back');
    await world.app.prisma
      .$executeRaw`DELETE FROM events WHERE account_id = ${world.accountId} AND data->>'id' = ${first.id}`;
    await world.app.prisma.paymentPlan.delete({ where: { id: first.id } });
    await stale(key);
    const retried = await api.post('/payment-plans', body(), { 'Idempotency-Key': key });
    expect(retried.status).toBe(201);
    expect(retried.body.id).toBe(first.id);
    expect(await installmentsOf(api, first.id)).toHaveLength(4);
    const run = await world.env.client.workflow.getHandle(paymentPlanWorkflowId(first.id)).describe();
    expect(run.status.name).toBe('RUNNING');
    expect(run.runId).not.toBe(gone);
  });
});

describe('a payment racing a cancel', () => {
  it('a cancel arriving while a card payment is at the gateway waits for it: the payment pays its installment, nothing is refunded', async () => {
    const gatewayDb = createPrisma(process.env.DATABASE_URL!, 2);
    const held = heldGateways(gatewayDb);
    const slow = await startPlanWorld({ gateways: held.gateways });
    try {
      const customer = await createCustomer(slow.api);
      const card = await addPaymentMethod(slow.api, customer.id, cardBody(CARDS.succeeds));
      const plan = expectStatus(await slow.api.post('/payment-plans', body({ customer: customer.id })), 201);
      const paying = slow.api.post(`/payment-plans/${plan.id}/payments`, { payment_method: card.id });
      await held.chargeStarted;
      const canceling = slow.api.post(`/payment-plans/${plan.id}/cancel`, {});
      await new Promise((resolve) => setTimeout(resolve, 500));
      held.release();
      const payment = await paying;
      const cancel = await canceling;
      expect(cancel.status).toBe(200);
      expect(payment.status).toBe(201);
      expect(payment.body.status).toBe('succeeded');
      expect((await installmentsOf(slow.api, plan.id))[0]).toMatchObject({ status: 'paid' });
      await planHasStatus(slow.api, plan.id, 'canceled');
      const moves = await slow.app.prisma.transaction.findMany({ where: { customerId: customer.id } });
      expect(moves.map((move) => `${move.type} ${move.status}`)).toEqual(['payment succeeded']);
      expect(await gatewayCharges(slow.app.prisma, slow.accountId)).toBe(1);
    } finally {
      await slow.close();
      await gatewayDb.$disconnect();
    }
  });

  it('asked at once, a payment is either paid before the cancel (and stays paid) or refused with 409: never charged and then refunded', async () => {
    const customer = await createCustomer(api);
    const card = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
    for (let round = 0; round < 6; round++) {
      const plan = expectStatus(await api.post('/payment-plans', body({ customer: customer.id })), 201);
      const [payment, cancel] = await Promise.all([
        api.post(`/payment-plans/${plan.id}/payments`, { payment_method: card.id }),
        api.post(`/payment-plans/${plan.id}/cancel`, {}),
      ]);
      expect(cancel.status).toBe(200);
      expect(await world.app.prisma.transaction.count({ where: { customerId: customer.id, type: 'refund' } })).toBe(0);
      if (payment.status === 201) {
        expect(payment.body.status).toBe('succeeded');
        expect((await installmentsOf(api, plan.id))[0]).toMatchObject({ status: 'paid' });
      } else {
        expect(payment.status).toBe(409);
        expect(payment.body.error.code).toBe('payment_plan_closed');
      }
      await planHasStatus(api, plan.id, 'canceled');
    }
  });
});
