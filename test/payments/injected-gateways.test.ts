import { randomUUID } from 'node:crypto';
import { registeredGateways } from '../../src/gateway-registrations';
import type { Gateways } from '../../src/payments/gateways';
import type { ImportPaymentMethodRequest } from '../../src/payments/gateway';
import { apiClient, createTestAccount, startTestApp, type ApiClient, type TestApp } from '../support/harness';
import { CARDS, cardBody, createCustomer } from '../support/payments';

/**
 * The payment-method calls (create, attach, detach, a customer's deletion) ask the app's own gateways, the ones
 * it was started with (docs/architecture.md, "Payment processors"), never a set of their own: here a processor
 * stand-in that keeps the methods, which the registered simulator would not.
 */
const imported: ImportPaymentMethodRequest[] = [];
const detached: string[] = [];

function processorStandIn(): Gateways {
  return {
    async gatewayFor(account) {
      const real = await registeredGateways(app.prisma).gatewayFor(account);
      return {
        charge: (request) => real.charge(request),
        refund: (request) => real.refund(request),
        retrieveCharge: (request) => real.retrieveCharge(request),
        retrieveRefund: (request) => real.retrieveRefund(request),
        async importPaymentMethod(request) {
          imported.push(request);
          return {
            id: request.paymentMethodId,
            type: 'card',
            livemode: false,
            fingerprint: `fp_${request.paymentMethodId}`,
            last4: '1881',
            billingName: 'Ada Lovelace',
            card: { brand: 'visa', expMonth: 7, expYear: 2040, wallet: null },
            bank: null,
          };
        },
        async detachPaymentMethod(paymentMethodId) {
          detached.push(paymentMethodId);
        },
      };
    },
  };
}

let app: TestApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  app = await startTestApp({ gateways: processorStandIn() });
  api = apiClient(app.baseUrl, (await createTestAccount(app.prisma)).apiKey);
  other = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { name: 'Other' })).apiKey);
});

afterAll(() => app.close());

describe('payment methods on the gateways the app was given', () => {
  it('attach imports a processor method through them, and detach detaches it there', async () => {
    const customer = await createCustomer(api);
    const id = `pm_injected_${randomUUID().replaceAll('-', '')}`;

    const attached = await api.post(`/payment-methods/${id}/attach`, { customer: customer.id });
    expect(attached.status).toBe(200);
    expect(attached.body).toMatchObject({ id, customer: customer.id, card: { brand: 'visa', last4: '1881' } });
    expect(imported).toContainEqual({ paymentMethodId: id, customerId: customer.id });
    expect((await other.get(`/payment-methods/${id}`)).status).toBe(404);

    const detach = await api.post(`/payment-methods/${id}/detach`, {});
    expect(detach.status).toBe(200);
    expect(detached).toContain(id);
  });

  it('create refuses card numbers, since the given processor keeps the methods', async () => {
    const created = await api.post('/payment-methods', cardBody(CARDS.succeeds));
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe('raw_numbers_refused');
  });

  it("a customer's deletion detaches its methods at the given processor", async () => {
    const customer = await createCustomer(api);
    const id = `pm_injected_${randomUUID().replaceAll('-', '')}`;
    expect((await api.post(`/payment-methods/${id}/attach`, { customer: customer.id })).status).toBe(200);
    expect((await other.delete(`/customers/${customer.id}`)).status).toBe(404);
    expect(detached).not.toContain(id);

    expect((await api.delete(`/customers/${customer.id}`)).status).toBe(200);
    expect(detached).toContain(id);
  });
});
