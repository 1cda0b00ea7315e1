import { eventsOf, startTwoAccountApp, type ApiClient, type TestApp } from '../support/harness';
import {
  addPaymentMethod,
  CARDS,
  cardBody,
  createCustomer,
  createInvoice,
  customerWithCard,
  gatewayCharges,
} from '../support/payments';
import { recurringPrice } from '../support/subscriptions';
import { registeredGateways } from '../../src/gateway-registrations';
import { toGatewayPaymentMethod } from '../../src/payments/payment-method.service';

let app: TestApp;
let api: ApiClient;
let accountId: string;
let other: ApiClient;

beforeAll(async () => {
  ({ app, api, accountId, other } = await startTwoAccountApp());
});

afterAll(() => app.close());

describe('DELETE /customers/{id} leaves nothing payable or chargeable', () => {
  it('detaches every payment method (payment_method.detached each) and voids draft invoices (invoice.deleted)', async () => {
    const { customer, method } = await customerWithCard(api);
    const second = await addPaymentMethod(api, customer.id, cardBody('5555555555554444'));
    const draft = await createInvoice(api, { customer: customer.id, lines: [{ description: 'Draft', amount: 700 }] });

    const deleted = await api.delete(`/customers/${customer.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: customer.id, object: 'customer', deleted: true });

    for (const id of [method.id, second.id]) {
      const found = await api.get(`/payment-methods/${id}`);
      expect(found.body.customer).toBeNull();
    }
    const detached = (await eventsOf(app.prisma, accountId, 'payment_method.detached')).map(
      (event) => (event.data as { id: string }).id,
    );
    expect(detached).toEqual(expect.arrayContaining([method.id, second.id]));

    const voided = await api.get(`/invoices/${draft.id}`);
    expect(voided.body.status).toBe('void');
    const pay = await api.put(`/invoices/${draft.id}`);
    expect(pay.status).toBe(409);
    expect(await gatewayCharges(app.prisma, accountId)).toBe(0);
    const types = (await eventsOf(app.prisma, accountId)).map((event) => event.type);
    // The customer goes last: everything that hung on it is closed first.
    expect(types.lastIndexOf('customer.deleted')).toBeGreaterThan(types.lastIndexOf('invoice.deleted'));
    expect(types.lastIndexOf('customer.deleted')).toBeGreaterThan(types.lastIndexOf('payment_method.detached'));
  });

  it('refuses (409 customer_has_open_invoices) while an invoice is open, and changes nothing', async () => {
    const { customer, method } = await customerWithCard(api);
    const invoice = await createInvoice(api, { customer: customer.id, lines: [{ description: 'Owed', amount: 900 }] });
    expect((await api.post(`/invoices/${invoice.id}/finalize`)).status).toBe(200);

    const refused = await api.delete(`/customers/${customer.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: 'conflict', code: 'customer_has_open_invoices' });
    expect((await api.get(`/customers/${customer.id}`)).status).toBe(200);
    expect((await api.get(`/payment-methods/${method.id}`)).body.customer).toBe(customer.id);

    expect((await api.delete(`/invoices/${invoice.id}`)).status).toBe(200);
    expect((await api.delete(`/customers/${customer.id}`)).status).toBe(200);
  });

  it("a deleted customer's card is spent: never attached to another customer nor charged; the card entered again is a new method", async () => {
    const { customer, method } = await customerWithCard(api, CARDS.succeeds);
    expect((await api.delete(`/customers/${customer.id}`)).status).toBe(200);
    const next = await createCustomer(api, 'Next owner');

    const attach = await api.post(`/payment-methods/${method.id}/attach`, { customer: next.id, default: true });
    expect(attach.status).toBe(409);
    expect(attach.body.error).toMatchObject({ type: 'conflict', code: 'payment_method_detached' });
    expect((await api.get(`/payment-methods/${method.id}`)).body).toMatchObject({
      customer: null,
      billing_details: { name: 'Ada Lovelace' },
    });
    expect((await api.get(`/customers/${next.id}/payment-methods`)).body.data).toEqual([]);

    // Every charge path refuses it: it is no customer's.
    const invoice = await createInvoice(api, { customer: next.id, lines: [{ description: 'Owed', amount: 800 }] });
    const pay = await api.put(`/invoices/${invoice.id}`, { payment_method: method.id });
    expect(pay.status).toBe(400);
    expect(pay.body.error.param).toBe('payment_method');
    expect((await api.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'draft', attempt_count: 0 });
    const product = (
      await api.post('/products', {
        name: `Monthly ${Date.now()}`,
        currency: 'USD',
        unit_amount: 1000,
        type: 'recurring',
        recurring: { interval: 'month', interval_count: 1 },
      })
    ).body;
    const subscription = await api.post('/subscriptions', {
      customer: next.id,
      items: [{ price: product.default_price, quantity: 1 }],
      trial_days: 0,
      start_date: Math.floor(Date.now() / 1000),
      default_payment_method: method.id,
    });
    expect(subscription.status).toBe(400);
    expect(subscription.body.error.param).toBe('default_payment_method');
    await app.prisma.account.update({ where: { id: accountId }, data: { paymentPlansEnabled: true } });
    const plan = await api.post('/payment-plans', {
      customer: next.id,
      total_amount: 3000,
      currency: 'USD',
      installments_count: 3,
      interval: 'month',
      payment_method: method.id,
    });
    expect(plan.status).toBe(400);
    expect(plan.body.error.param).toBe('payment_method');
    // Last line of defence: the gateway itself refuses a detached method.
    const row = await app.prisma.paymentMethod.findUniqueOrThrow({ where: { id: method.id } });
    const refused = await (
      await registeredGateways(app.prisma).gatewayFor(accountId)
    ).charge({
      amount: 100,
      currency: 'USD',
      paymentMethod: toGatewayPaymentMethod(row),
      idempotencyKey: `detached-${method.id}`,
    });
    expect(refused).toMatchObject({ status: 'failed', failureCode: 'payment_method_detached' });
    expect(await app.prisma.gatewayCharge.count({ where: { accountId, kind: 'charge', status: 'succeeded' } })).toBe(0);
    // Another account sees none of it.
    expect((await other.post(`/payment-methods/${method.id}/attach`, { customer: next.id })).status).toBe(404);
    expect((await other.get(`/payment-methods/${method.id}`)).status).toBe(404);

    // The new owner enters the card again: a new method with the new owner's details, which pays.
    const entered = await addPaymentMethod(
      api,
      next.id,
      cardBody(CARDS.succeeds, { billing_details: { name: 'Next Owner' } }),
    );
    expect(entered.id).not.toBe(method.id);
    expect(entered).toMatchObject({
      customer: next.id,
      billing_details: { name: 'Next Owner' },
      card: { fingerprint: row.fingerprint },
    });
    const paid = await api.put(`/invoices/${invoice.id}`);
    expect(paid.body).toMatchObject({ status: 'paid', payment_method: entered.id });
  });

  it('racing DELETE /customers/{id}: no invoice or payment method made meanwhile stays payable (20 rounds)', async () => {
    const deletedIds: string[] = [];
    for (let round = 0; round < 20; round += 1) {
      const customer = await createCustomer(api, `Racer ${round}`);
      const loose = (await api.post('/payment-methods', cardBody(CARDS.succeeds))).body;
      const [deleted, invoice, second, attach] = await Promise.all([
        api.delete(`/customers/${customer.id}`),
        api.post('/invoices', { customer: customer.id, lines: [{ description: 'Race', amount: 500 }] }),
        api.post('/invoices', { customer: customer.id, lines: [{ description: 'Race too', amount: 700 }] }),
        api.post(`/payment-methods/${loose.id}/attach`, { customer: customer.id }),
      ]);
      expect(deleted.status).toBe(200);
      for (const made of [invoice, second, attach]) expect([200, 201, 404]).toContain(made.status);
      deletedIds.push(customer.id);
    }
    const payable = await app.prisma.invoice.findMany({
      where: { accountId, customerId: { in: deletedIds }, status: { not: 'void' } },
    });
    expect(payable).toEqual([]);
    const attached = await app.prisma.paymentMethod.count({ where: { accountId, customerId: { in: deletedIds } } });
    expect(attached).toBe(0);
  });

  it('racing DELETE /customers/{id}: a subscription or payment plan is made and the deletion refused, or the customer is gone and it is 404 (20 rounds)', async () => {
    await app.prisma.account.update({ where: { id: accountId }, data: { paymentPlansEnabled: true } });
    const price = await recurringPrice(api, { unitAmount: 900 });
    const later = Math.floor(Date.now() / 1000) + 30 * 86_400;
    const deletedIds: string[] = [];
    for (let round = 0; round < 20; round += 1) {
      const customer = await createCustomer(api, `Subscriber ${round}`);
      const [deleted, subscription, plan] = await Promise.all([
        api.delete(`/customers/${customer.id}`),
        api.post('/subscriptions', {
          customer: customer.id,
          items: [{ price, quantity: 1 }],
          trial_days: 0,
          start_date: later,
        }),
        api.post('/payment-plans', {
          customer: customer.id,
          total_amount: 1000,
          currency: 'USD',
          installments_count: 2,
          interval: 'month',
          start_date: later,
        }),
      ]);
      if (deleted.status === 200) {
        deletedIds.push(customer.id);
        for (const made of [subscription, plan]) expect(made.status).toBe(404);
      } else {
        expect(deleted.body.error).toMatchObject({ code: 'customer_has_active_billing' });
        expect([subscription.status, plan.status]).toContain(201);
        for (const made of [subscription, plan]) expect([201, 404]).toContain(made.status);
      }
    }
    const live = { customerId: { in: deletedIds }, accountId };
    expect(await app.prisma.subscription.count({ where: live })).toBe(0);
    expect(await app.prisma.paymentPlan.count({ where: live })).toBe(0);
  });

  it("a deleted customer's draft (made before deletion voided drafts) is never finalized: 409 customer_deleted", async () => {
    const { customer } = await customerWithCard(api, CARDS.succeeds);
    const draft = await createInvoice(api, {
      customer: customer.id,
      lines: [{ description: 'Left over', amount: 600 }],
    });
    // As the race above used to leave it: the customer deleted, its draft still a draft.
    await app.prisma.customer.update({ where: { id: customer.id }, data: { deletedAt: new Date() } });
    for (const attempt of [() => api.post(`/invoices/${draft.id}/finalize`), () => api.put(`/invoices/${draft.id}`)]) {
      const refused = await attempt();
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ type: 'conflict', code: 'customer_deleted' });
    }
    expect((await other.post(`/invoices/${draft.id}/finalize`)).status).toBe(404);
    expect((await api.get(`/invoices/${draft.id}`)).body).toMatchObject({ status: 'draft', number: null });
    expect(await app.prisma.transaction.count({ where: { accountId, invoiceId: draft.id } })).toBe(0);
    expect((await api.delete(`/invoices/${draft.id}`)).body.status).toBe('void');
  });

  it("another account cannot delete the customer (404) and the customer's cards stay attached", async () => {
    const { customer, method } = await customerWithCard(api);
    expect((await other.delete(`/customers/${customer.id}`)).status).toBe(404);
    expect((await api.get(`/payment-methods/${method.id}`)).body.customer).toBe(customer.id);
  });
});
