import { eventsOf, startTwoAccountApp, type ApiClient, type TestApp } from './support/harness';
import { addPaymentMethod, cardBody, createInvoice, customerWithCard, gatewayCharges } from './support/payments';

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
    const detached = (await eventsOf(app.prisma, accountId, 'payment_method.detached')).map((event) => (event.data as { id: string }).id);
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

  it("another account cannot delete the customer (404) and the customer's cards stay attached", async () => {
    const { customer, method } = await customerWithCard(api);
    expect((await other.delete(`/customers/${customer.id}`)).status).toBe(404);
    expect((await api.get(`/payment-methods/${method.id}`)).body.customer).toBe(customer.id);
  });
});
