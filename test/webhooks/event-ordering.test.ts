import { eventsOf, startTwoAccountApp, type ApiClient, type TestApp } from '../support/harness';
import { createProduct } from '../support/catalog';
import { createInvoice, customerWithCard } from '../support/payments';

let app: TestApp;
let api: ApiClient;
let accountId: string;

beforeAll(async () => {
  ({ app, api, accountId } = await startTwoAccountApp());
});

afterAll(() => app.close());

/** Every event's `data.updated_ms` for one object, in the order the events were written. */
async function versionsOf(objectId: string, prefix: string): Promise<{ type: string; updatedMs: number }[]> {
  return (await eventsOf(app.prisma, accountId))
    .filter((event) => event.type.startsWith(prefix) && (event.data as { id: string }).id === objectId)
    .map((event) => ({ type: event.type, updatedMs: (event.data as { updated_ms: number }).updated_ms }));
}

function expectStrictlyIncreasing(values: number[]): void {
  for (let index = 1; index < values.length; index += 1) expect(values[index]!).toBeGreaterThan(values[index - 1]!);
}

describe('updated_ms orders the versions of one object', () => {
  it('strictly increases with every customer change, even several in one millisecond', async () => {
    const created = (await api.post('/customers', { name: 'Order Test' })).body;
    expect(Number.isInteger(created.updated_ms)).toBe(true);
    expect(created.updated_ms).toBeGreaterThanOrEqual(created.created * 1000);
    const updates = await Promise.all(
      Array.from({ length: 5 }, (_, index) => api.patch(`/customers/${created.id}`, { name: `Name ${index}` })),
    );
    for (const update of updates) expect(update.status).toBe(200);
    const versions = await versionsOf(created.id, 'customer.');
    expect(versions.map((version) => version.type)).toEqual(['customer.created', ...Array(5).fill('customer.updated')]);
    expectStrictlyIncreasing(versions.map((version) => version.updatedMs));
    // The latest event's data is the object as GET shows it.
    const current = (await api.get(`/customers/${created.id}`)).body;
    expect(current.updated_ms).toBe(versions.at(-1)!.updatedMs);
  });

  it("tells an invoice's created, finalized and paid versions apart, in order", async () => {
    const { customer } = await customerWithCard(api);
    const invoice = await createInvoice(api, {
      customer: customer.id,
      lines: [{ description: 'Order', amount: 1000 }],
    });
    const paid = await api.put(`/invoices/${invoice.id}`);
    expect(paid.status).toBe(200);
    const versions = await versionsOf(invoice.id, 'invoice.');
    expect(versions.map((version) => version.type)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_succeeded',
    ]);
    expectStrictlyIncreasing(versions.map((version) => version.updatedMs));
    expect(paid.body.updated_ms).toBe(versions.at(-1)!.updatedMs);
  });

  it('is on products, prices, tax rates and payment methods too, in responses and events alike', async () => {
    const product = await createProduct(api);
    const price = (await api.get(`/prices/${product.default_price}`)).body;
    const rate = (await api.post('/taxRates', { display_name: 'VAT', percentage: 20, inclusive: false })).body;
    const { method } = await customerWithCard(api);
    for (const object of [product, price, rate, method]) expect(Number.isInteger(object.updated_ms)).toBe(true);
    const renamed = (await api.patch(`/products/${product.id}`, { name: `${product.name} v2` })).body;
    expect(renamed.updated_ms).toBeGreaterThan(product.updated_ms);
    // `updated` stays Unix seconds, as the spec says.
    expect(renamed.updated).toBe(Math.floor(renamed.updated / 1) && renamed.updated);
    expect(renamed.updated).toBeLessThan(1e11);
    const productVersions = await versionsOf(product.id, 'product.');
    expectStrictlyIncreasing(productVersions.map((version) => version.updatedMs));
  });
});
