import { startTestWorker, type ApiClient, type TestApp, startWorkerApp } from '../support/harness';
import { CARDS, cardBody } from '../support/payments';

// Every request example /openapi.json carries is sent to the running API, with real ids of the account
// in place of the example's: the server must accept what its own document shows (docs/api.md
// "Conventions", src/http/openapi-examples.ts).

const EXAMPLE_ID = /^([a-z]+)_4f1XbQ9kT2mZ7cR8vL3nP6sW$/;
const EXAMPLE_UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

/** Operations whose example must succeed; the others act on state (a payment to resolve, a sale to present) and may answer a documented 404 or 409. */
const MUST_SUCCEED = [
  'POST /customers',
  'PATCH /customers/{externalKey}',
  'POST /webhook/destination',
  'PUT /webhook/destination/{id}',
  'POST /products',
  'PATCH /products/{id}',
  'POST /prices/{id}',
  'PATCH /prices/{id}/inactive',
  'PATCH /prices/{id}/active',
  'POST /taxRates',
  'PATCH /taxRates/{id}',
  'POST /payment-methods',
  'POST /payment-methods/{id}/attach',
  'POST /payment-methods/{id}/detach',
  'POST /invoices',
  'PUT /invoices/{id}',
  'POST /terminals',
  'POST /payment-plans',
  'POST /payment-plans/{id}/deposit/terminal',
  'POST /invoices/{id}/refund',
  'POST /subscriptions',
  'PATCH /subscriptions/{id}',
  'POST /subscriptions/{id}/pause',
  'POST /subscriptions/{id}/resume',
  'PUT /settings/dunning',
  'POST /test-helpers/test-clocks',
  'POST /test-helpers/test-clocks/{id}/advance',
];

let app: TestApp;
let api: ApiClient;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  ({ app, worker, api } = await startWorkerApp('examples', { paymentPlans: true }));
});
afterAll(async () => {
  await worker?.stop();
  await app?.close();
});

async function created(path: string, body: unknown): Promise<any> {
  const response = await api.post(path, body);
  expect([path, response.status]).toEqual([path, 201]);
  return response.body;
}

it('the server accepts every request example of /openapi.json', async () => {
  const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, any>>;
  };

  // The account's world: what the examples' ids stand for.
  const customer = await created('/customers', { name: 'Example World' });
  const card = await created('/payment-methods', cardBody(CARDS.succeeds, { customer: customer.id }));
  const spareCard = await created(
    '/payment-methods',
    cardBody('5555555555554444', { billing_details: { name: 'Spare' } }),
  );
  const product = await created('/products', {
    name: 'World product',
    currency: 'USD',
    unit_amount: 1500,
    type: 'one_time',
  });
  const recurring = await created(`/prices/${product.id}`, {
    currency: 'USD',
    unit_amount: 900,
    type: 'recurring',
    recurring: { interval: 'month', interval_count: 1 },
  });
  const taxRate = await created('/taxRates', { display_name: 'World tax', percentage: 5, inclusive: false });
  const invoice = await created('/invoices', {
    customer: customer.id,
    lines: [{ description: 'World line', amount: 2500 }],
  });
  const destination = await created('/webhook/destination', { url: 'https://hooks.example.com/world' });
  const terminal = await created('/terminals', { label: 'World terminal' });
  const ids: Record<string, string> = {
    cus: customer.id,
    pm: card.id,
    prod: product.id,
    price: recurring.id,
    txr: taxRate.id,
    we: destination.id,
    tml: terminal.id,
  };
  // A /payment-methods/{id} path acts on a card of its own (another number: the same one would attach as the saved card), so detaching it leaves the customer's default in place.
  const pathIds: Record<string, string> = { pm: spareCard.id };

  const collectionPrefix: [RegExp, string][] = [
    [/^\/customers\/\{externalKey\}/, 'cus'],
    [/^\/webhook\/destination\/\{id\}/, 'we'],
    [/^\/products\/\{id\}/, 'prod'],
    [/^\/prices\/\{id\}$/, 'prod'],
    [/^\/prices\/\{id\}/, 'price'],
    [/^\/taxRates\/\{id\}/, 'txr'],
    [/^\/payment-methods\/\{id\}/, 'pm'],
    [/^\/invoices\/\{id\}/, 'invoice'],
    [/^\/(test-helpers\/)?terminals\/\{id\}/, 'tml'],
    [/^\/payment-plans\/\{id\}/, 'pp'],
    [/^\/subscriptions\/\{id\}/, 'sub'],
    [/^\/test-helpers\/test-clocks\/\{id\}/, 'clock'],
  ];
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (value === EXAMPLE_UUID) return invoice.id;
      const match = EXAMPLE_ID.exec(value);
      return match ? (ids[match[1]!] ?? value) : value;
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fill(inner)]));
    return value;
  };

  const answers: { operation: string; status: number; error?: unknown }[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const example = operation.requestBody?.content?.['application/json']?.example;
      if (example === undefined) continue;
      const name = `${method.toUpperCase()} ${template}`;
      const prefix = collectionPrefix.find(([pattern]) => pattern.test(template))?.[1];
      const path = template
        .replace(/\{(id|externalKey)\}/, () =>
          prefix === 'invoice' ? invoice.id : (pathIds[prefix!] ?? ids[prefix!] ?? 'none_0'),
        )
        .replace('{payment_id}', ids.ppay ?? 'ppay_0');
      const response = await api.request(method.toUpperCase(), path, fill(example));
      answers.push({ operation: name, status: response.status, error: response.body?.error });
      if (response.status >= 200 && response.status < 300) {
        // What an example created stands for its kind from now on, where the world has none (a plan, a subscription, a clock).
        const body = response.body as { id?: string; items?: { data?: { id: string }[] } };
        const kind = body.id?.split('_')[0];
        if (kind && body.id!.includes('_') && !ids[kind]) ids[kind] = body.id!;
        // A subscription's items are a list object; a checkout session's are a plain array.
        if (body.items?.data?.[0] && !ids.si) ids.si = body.items.data[0].id;
      }
    }
  }

  // Every answer is documented (apiClient checks it); none refuses the example as invalid.
  expect(answers.filter((answer) => answer.status === 400)).toEqual([]);
  const failed = answers.filter(
    (answer) => MUST_SUCCEED.includes(answer.operation) && (answer.status < 200 || answer.status > 299),
  );
  expect(failed).toEqual([]);
  expect(answers.map((answer) => answer.operation)).toEqual(expect.arrayContaining(MUST_SUCCEED));
});
