import { expectStatus, startTwoAccountApp, type ApiClient, type TwoAccountApp } from '../support/harness';
import { createCustomer } from '../support/payments';
import { subscribeNow } from '../support/subscriptions';

// Prices that describe usage through HTTP (docs/api.md "Usage-based billing"): metered prices on a meter,
// tiered prices (graduated, volume), packages; the refusals naming the field, another account's meter,
// and such prices refused where the per-unit billing would bill them wrong (400 price_not_billable).

let stack: TwoAccountApp;
let api: ApiClient;
let product: string;
let meter: { id: string };

const TIERS = [
  { up_to: 1000, unit_amount: 5 },
  { up_to: 10_000, unit_amount: 3, flat_amount: 1000 },
  { up_to: 'inf', unit_amount: 1 },
];
const monthly = { interval: 'month', interval_count: 1 };

beforeAll(async () => {
  stack = await startTwoAccountApp('usage-prices');
  api = stack.api;
  product = expectStatus(
    await api.post('/products', {
      name: 'API calls',
      currency: 'USD',
      unit_amount: 1000,
      type: 'recurring',
      recurring: monthly,
    }),
    201,
  ).id;
  meter = expectStatus(await api.post('/meters', { name: 'Calls', event_name: 'api_call', aggregation: 'count' }), 201);
}, 60_000);

afterAll(() => stack?.app.close());

it('creates metered, tiered and package prices and answers their terms', async () => {
  const metered = expectStatus(
    await api.post(`/prices/${product}`, {
      currency: 'USD',
      type: 'recurring',
      recurring: { ...monthly, usage_type: 'metered', meter: meter.id },
      billing_scheme: 'tiered',
      tiers_mode: 'graduated',
      tiers: TIERS,
    }),
    201,
  );
  expect(metered).toMatchObject({
    unit_amount: 0,
    recurring: { interval: 'month', interval_count: 1, usage_type: 'metered', meter: meter.id },
    billing_scheme: 'tiered',
    tiers_mode: 'graduated',
    tiers: [
      { up_to: 1000, unit_amount: 5, flat_amount: null },
      { up_to: 10_000, unit_amount: 3, flat_amount: 1000 },
      { up_to: null, unit_amount: 1, flat_amount: null },
    ],
    transform_quantity: null,
  });
  expect(expectStatus(await api.get(`/prices/${metered.id}`), 200)).toEqual(metered);

  const packages = expectStatus(
    await api.post(`/prices/${product}`, {
      currency: 'USD',
      unit_amount: 250,
      type: 'recurring',
      recurring: { ...monthly, usage_type: 'metered', meter: meter.id },
      transform_quantity: { divide_by: 1000, round: 'up' },
    }),
    201,
  );
  expect(packages).toMatchObject({
    billing_scheme: 'per_unit',
    tiers: null,
    transform_quantity: { divide_by: 1000, round: 'up' },
  });

  const volume = expectStatus(
    await api.post(`/prices/${product}`, {
      currency: 'USD',
      type: 'one_time',
      billing_scheme: 'tiered',
      tiers_mode: 'volume',
      tiers: TIERS,
    }),
    201,
  );
  expect(volume).toMatchObject({ recurring: null, tiers_mode: 'volume' });

  // A plain price answers the defaults.
  const plain = expectStatus(
    await api.get(`/prices/${expectStatus(await api.get(`/products/${product}`), 200).default_price}`),
    200,
  );
  expect(plain).toMatchObject({
    billing_scheme: 'per_unit',
    tiers_mode: null,
    tiers: null,
    transform_quantity: null,
    recurring: { usage_type: 'licensed', meter: null },
  });
  // Its usage terms cannot change; the description can.
  const patched = await api.patch(`/prices/${metered.id}/inactive`, { unit_amount: 7 });
  expect([patched.status, patched.body.error.code]).toEqual([409, 'price_usage_terms']);
  expectStatus(await api.patch(`/prices/${metered.id}/inactive`, { description: 'Calls, tiered' }), 200);
});

it('refuses usage terms that do not go together, naming the field', async () => {
  const base = { currency: 'USD', type: 'recurring', recurring: monthly };
  const tiered = { ...base, billing_scheme: 'tiered', tiers_mode: 'graduated', tiers: TIERS };
  const cases: [Record<string, unknown>, string][] = [
    [{ ...base }, 'unit_amount'],
    [{ ...tiered, unit_amount: 5 }, 'unit_amount'],
    [{ ...tiered, tiers_mode: undefined }, 'tiers_mode'],
    [{ ...tiered, tiers: undefined }, 'tiers'],
    [{ ...tiered, tiers: [] }, 'tiers'],
    [{ ...tiered, tiers: [{ up_to: 10, unit_amount: 1 }] }, 'tiers.0.up_to'],
    [
      {
        ...tiered,
        tiers: [
          { up_to: 'inf', unit_amount: 1 },
          { up_to: 'inf', unit_amount: 1 },
        ],
      },
      'tiers.0.up_to',
    ],
    [
      {
        ...tiered,
        tiers: [
          { up_to: 10, unit_amount: 1 },
          { up_to: 10, unit_amount: 1 },
          { up_to: 'inf', unit_amount: 1 },
        ],
      },
      'tiers.1.up_to',
    ],
    [{ ...tiered, tiers: [{ up_to: 'inf' }] }, 'tiers.0.unit_amount'],
    [{ ...tiered, tiers: [{ up_to: 'inf', unit_amount: 1.5 }] }, 'tiers.0.unit_amount'],
    [{ ...tiered, tiers: [{ up_to: 'inf', flat_amount: -1 }] }, 'tiers.0.flat_amount'],
    [{ ...tiered, transform_quantity: { divide_by: 10, round: 'up' } }, 'transform_quantity'],
    [{ ...base, unit_amount: 5, tiers: TIERS }, 'tiers'],
    [{ ...base, unit_amount: 5, transform_quantity: { divide_by: 0, round: 'up' } }, 'transform_quantity.divide_by'],
    [{ ...base, unit_amount: 5, transform_quantity: { divide_by: 10, round: 'nearest' } }, 'transform_quantity.round'],
    [{ ...base, unit_amount: 5, recurring: { ...monthly, usage_type: 'metered' } }, 'recurring.meter'],
    [{ ...base, unit_amount: 5, recurring: { ...monthly, meter: meter.id } }, 'recurring.meter'],
    [{ ...base, unit_amount: 5, recurring: { ...monthly, usage_type: 'rented' } }, 'recurring.usage_type'],
  ];
  for (const [body, param] of cases) {
    const response = await api.post(`/prices/${product}`, body);
    expect([JSON.stringify(body), response.status, response.body.error?.param]).toEqual([
      JSON.stringify(body),
      400,
      param,
    ]);
  }
});

it("refuses another account's meter and an inactive one", async () => {
  const body = {
    currency: 'USD',
    unit_amount: 5,
    type: 'recurring',
    recurring: { ...monthly, usage_type: 'metered', meter: meter.id },
  };
  const theirProduct = expectStatus(
    await stack.other.post('/products', {
      name: 'Theirs',
      currency: 'USD',
      unit_amount: 1,
      type: 'recurring',
      recurring: monthly,
    }),
    201,
  ).id;
  const theirs = await stack.other.post(`/prices/${theirProduct}`, body);
  expect([theirs.status, theirs.body.error.param]).toEqual([404, 'recurring.meter']);
  const idle = expectStatus(await api.post('/meters', { name: 'Idle', event_name: 'idle', aggregation: 'count' }), 201);
  expectStatus(await api.post(`/meters/${idle.id}/deactivate`), 200);
  const inactive = await api.post(`/prices/${product}`, { ...body, recurring: { ...body.recurring, meter: idle.id } });
  expect([inactive.status, inactive.body.error.code, inactive.body.error.param]).toEqual([
    400,
    'meter_inactive',
    'recurring.meter',
  ]);
});

it('refuses tiered prices on invoices, checkouts and licensed items, and a quantity on a metered item, naming the field', async () => {
  const metered = expectStatus(
    await api.post(`/prices/${product}`, {
      currency: 'USD',
      unit_amount: 5,
      type: 'recurring',
      recurring: { ...monthly, usage_type: 'metered', meter: meter.id },
    }),
    201,
  );
  const volume = expectStatus(
    await api.post(`/prices/${product}`, {
      currency: 'USD',
      type: 'one_time',
      billing_scheme: 'tiered',
      tiers_mode: 'volume',
      tiers: TIERS,
    }),
    201,
  );
  const licensedTiers = expectStatus(
    await api.post(`/prices/${product}`, {
      currency: 'USD',
      type: 'recurring',
      recurring: monthly,
      billing_scheme: 'tiered',
      tiers_mode: 'graduated',
      tiers: TIERS,
    }),
    201,
  );
  const customer = await createCustomer(api);
  const subscribe = (items: unknown[]) => subscribeNow(api, customer.id, items);
  // A metered item takes no quantity (its usage is billed in arrears); a licensed tiered price is not billable.
  const quantified = await subscribe([{ price: metered.id, quantity: 1 }]);
  expect([quantified.status, quantified.body.error.code, quantified.body.error.param]).toEqual([
    400,
    'parameter_invalid',
    'items.0.quantity',
  ]);
  const tiered = await subscribe([{ price: licensedTiers.id, quantity: 1 }]);
  expect([tiered.status, tiered.body.error.code, tiered.body.error.param]).toEqual([
    400,
    'price_not_billable',
    'items.0.price',
  ]);
  const invoiceOfMetered = await api.post('/invoices', {
    customer: customer.id,
    lines: [{ price: metered.id, quantity: 3 }],
  });
  expect(invoiceOfMetered.status).toBe(400);
  const invoice = await api.post('/invoices', { customer: customer.id, lines: [{ price: volume.id, quantity: 3 }] });
  expect([invoice.status, invoice.body.error.code, invoice.body.error.param]).toEqual([
    400,
    'price_not_billable',
    'lines.0.price',
  ]);
  const checkout = await api.post('/checkout/sessions', {
    items: [{ price: volume.id, quantity: 1 }],
    success_url: 'https://example.com/ok',
    cancel_url: 'https://example.com/back',
  });
  expect([checkout.status, checkout.body.error?.code, checkout.body.error?.param]).toEqual([
    400,
    'price_not_billable',
    'items.0.price',
  ]);
});
