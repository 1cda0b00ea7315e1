import { findPrice, findPricesForUse, markPricesBilled } from '../../src/catalog/price.service';
import {
  apiClient,
  createTestAccount,
  eventsOf,
  type ApiClient,
  type TestApp,
  startTwoAccountApp,
} from '../support/harness';
import { attachToSubscription, billPrices, createProduct, monthlyPrice, oneTimePrice } from '../support/catalog';
import { createInvoice, customerWithCard } from '../support/payments';

let app: TestApp;
let api: ApiClient;
let accountId: string;
let other: ApiClient;
let otherAccountId: string;

beforeAll(async () => {
  ({ app, api, accountId, other, otherAccountId } = await startTwoAccountApp());
});

afterAll(() => app.close());

async function createPrice(productId: string, body: object = oneTimePrice) {
  const response = await api.post(`/prices/${productId}`, body);
  if (response.status !== 201)
    throw new Error(`POST /prices answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

async function priceEvents(priceId: string) {
  return (await eventsOf(app.prisma, accountId)).filter((event) => (event.data as { id: string }).id === priceId);
}

describe('POST /prices/{productId}', () => {
  it('creates a price for the product (inactive until billed) and writes price.created', async () => {
    const product = await createProduct(api);
    const response = await api.post(`/prices/${product.id}`, {
      currency: 'USD',
      unit_amount: 99999999,
      type: 'recurring',
      recurring: { interval: 'week', interval_count: 2 },
      tax_behavior: 'inclusive',
      description: 'd'.repeat(255),
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^price_[a-zA-Z0-9]+$/),
      object: 'price',
      product: product.id,
      active: false,
      currency: 'USD',
      unit_amount: 99999999,
      type: 'recurring',
      recurring: { interval: 'week', interval_count: 2, usage_type: 'licensed', meter: null },
      billing_scheme: 'per_unit',
      tiers_mode: null,
      tiers: null,
      transform_quantity: null,
      tax_behavior: 'inclusive',
      description: 'd'.repeat(255),
      created: expect.any(Number),
      updated: null,
      updated_ms: expect.any(Number),
    });
    const events = await priceEvents(response.body.id);
    expect(events.map((event) => event.type)).toEqual(['price.created']);
    expect(events[0]!.data).toEqual(response.body);
    // The product keeps its first price as the default.
    expect((await api.get(`/products/${product.id}`)).body.default_price).toBe(product.default_price);
  });

  it('accepts unit_amount 0 and defaults tax_behavior to exclusive', async () => {
    const product = await createProduct(api);
    const price = await createPrice(product.id, { currency: 'usd', unit_amount: 0, type: 'one_time' });
    expect(price).toMatchObject({
      unit_amount: 0,
      tax_behavior: 'exclusive',
      currency: 'USD',
      recurring: null,
      description: null,
    });
  });

  it.each([
    [{ unit_amount: 100000000 }, 'unit_amount'],
    [{ unit_amount: -1 }, 'unit_amount'],
    [{ unit_amount: 1.5 }, 'unit_amount'],
    [{ currency: 'GBP' }, 'currency'],
    [{ description: 'd'.repeat(256) }, 'description'],
    [{ type: 'recurring' }, 'recurring'],
    [{ recurring: { interval: 'day', interval_count: 1 } }, 'recurring'],
    [{ ...monthlyPrice, recurring: { interval: 'day', interval_count: 1096 } }, 'recurring.interval_count'],
    [{ tax_behavior: 'none' }, 'tax_behavior'],
    [{ name: 'Not a price field' }, 'name'],
  ])('rejects %j with 400 naming %s, writing nothing', async (patch, param) => {
    const product = await createProduct(api);
    const response = await api.post(`/prices/${product.id}`, { ...oneTimePrice, ...patch });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
    expect(await app.prisma.price.count({ where: { productId: product.id } })).toBe(1);
  });

  it('answers 404 for an unknown product and for a malformed id', async () => {
    const missing = await api.post('/prices/prod_nope', oneTimePrice);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain('prod_nope');
    const malformed = await api.post('/prices/prod-nope', oneTimePrice);
    expect(malformed.status).toBe(404);
    expect(malformed.body.error.param).toBe('id');
  });
});

describe('GET /prices', () => {
  let list: ApiClient;
  let listAccountId: string;
  let productA: { id: string; default_price: string };
  let productB: { id: string; default_price: string };
  let extra: { id: string };

  beforeAll(async () => {
    const account = await createTestAccount(app.prisma);
    listAccountId = account.accountId;
    list = apiClient(app.baseUrl, account.apiKey);
    productA = await createProduct(list, { ...oneTimePrice, unit_amount: 100 });
    productB = await createProduct(list, { ...monthlyPrice });
    extra = (await list.post(`/prices/${productA.id}`, { ...monthlyPrice, description: 'Annual-ish Gold tier' })).body;
    const ids = [productA.default_price, productB.default_price, extra.id];
    for (const [index, id] of ids.entries()) {
      await app.prisma.price.update({
        where: { id },
        data: { createdAt: new Date((1_700_000_000 + index * 1000) * 1000) },
      });
    }
    await billPrices(app.prisma, listAccountId, [productB.default_price]);
  });

  const ids = (body: { data: { id: string }[] }) => body.data.map((price) => price.id);
  const search = (filter: unknown) =>
    list.get(`/prices?search=${encodeURIComponent(typeof filter === 'string' ? filter : JSON.stringify(filter))}`);

  it('pages newest first in a {data, meta} envelope', async () => {
    const all = await list.get('/prices');
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual([extra.id, productB.default_price, productA.default_price]);
    expect(all.body.meta).toEqual({ page: 1, take: 10, itemsTotal: 3, pagesTotal: 1 });
    expect((await list.get('/prices?take=1&page=3')).body).toMatchObject({
      data: [{ id: productA.default_price }],
      meta: { pagesTotal: 3 },
    });
    expect((await list.get('/prices?take=100')).status).toBe(200);
  });

  it.each([
    ['take=101', 'take'],
    ['take=0', 'take'],
    ['page=0', 'page'],
    ['product=prod_1', 'product'],
  ])('rejects ?%s with 400 naming %s', async (query, param) => {
    const response = await list.get(`/prices?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });

  it('searches plain text in the description, or an exact id', async () => {
    expect(ids((await search('gold TIER')).body)).toEqual([extra.id]);
    expect(ids((await search(productA.default_price)).body)).toEqual([productA.default_price]);
  });

  it('filters with the JSON keys active, product, type, currency, ids and created', async () => {
    expect(ids((await search({ active: true })).body)).toEqual([productB.default_price]);
    expect(ids((await search({ active: false })).body)).toEqual([extra.id, productA.default_price]);
    expect(ids((await search({ product: productA.id })).body)).toEqual([extra.id, productA.default_price]);
    expect(ids((await search({ type: 'recurring' })).body)).toEqual([extra.id, productB.default_price]);
    expect(ids((await search({ currency: 'usd' })).body)).toHaveLength(3);
    expect(ids((await search({ ids: `${extra.id},${productA.default_price}` })).body)).toEqual([
      extra.id,
      productA.default_price,
    ]);
    expect(ids((await search({ created: { gte: 1_700_001_000 } })).body)).toEqual([extra.id, productB.default_price]);
    expect(ids((await search({ created: { lt: 1_700_001_000 } })).body)).toEqual([productA.default_price]);
    expect(ids((await search({ product: productA.id, type: 'one_time' })).body)).toEqual([productA.default_price]);
  });

  it.each([
    ['{not json', 'search'],
    [{ unit_amount: 5 }, 'search.unit_amount'],
    [{ type: 'weekly' }, 'search.type'],
    [{ product: 'bad id' }, 'search.product'],
    [{ created: { gt: -1 } }, 'search.created.gt'],
  ])('rejects the JSON filter %j with 400 naming %s', async (filter, param) => {
    const response = await search(filter);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });
});

describe('GET /prices/{id}', () => {
  it('gets a price; unknown and malformed ids are 404', async () => {
    const product = await createProduct(api);
    const price = await createPrice(product.id);
    expect((await api.get(`/prices/${price.id}`)).body).toEqual(price);
    expect((await api.get('/prices/price_nope')).status).toBe(404);
    const malformed = await api.get('/prices/price-nope');
    expect(malformed.status).toBe(404);
    expect(malformed.body.error.param).toBe('id');
  });
});

describe('DELETE /prices/{id}', () => {
  it('deletes a never-billed price with no subscription and writes price.deleted', async () => {
    const product = await createProduct(api);
    const price = await createPrice(product.id);
    const response = await api.delete(`/prices/${price.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: price.id, object: 'price', deleted: true });
    expect((await api.get(`/prices/${price.id}`)).status).toBe(404);
    expect((await api.delete(`/prices/${price.id}`)).status).toBe(404);
    const events = await priceEvents(price.id);
    expect(events.map((event) => event.type)).toEqual(['price.created', 'price.deleted']);
    expect(events[1]!.data).toEqual(price);
    expect((await api.get(`/products/${product.id}`)).body.default_price).toBe(product.default_price);
  });

  it('refuses (409) to delete a price, or its product, while a draft or open invoice bills it; the invoice can still be paid', async () => {
    const product = await createProduct(api);
    const priceId = product.default_price as string;
    const { customer } = await customerWithCard(api);
    const invoice = await createInvoice(api, { customer: customer.id, lines: [{ price: priceId, quantity: 1 }] });
    const refused = await api.delete(`/prices/${priceId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      type: 'conflict',
      code: 'price_in_use',
      message: expect.stringContaining('invoice'),
    });
    expect((await api.delete(`/products/${product.id}`)).body.error.code).toBe('product_in_use');
    const paid = await api.put(`/invoices/${invoice.id}`, {});
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('paid');
    expect((await api.get(`/prices/${priceId}`)).body.active).toBe(true);
    expect((await api.delete(`/prices/${priceId}`)).body.error.code).toBe('price_billed');
  });

  it('allows deleting a price once the only invoice billing it is void', async () => {
    const product = await createProduct(api);
    const { customer } = await customerWithCard(api);
    const extra = await api.post(`/prices/${product.id}`, oneTimePrice);
    const invoice = await createInvoice(api, { customer: customer.id, lines: [{ price: extra.body.id, quantity: 1 }] });
    expect((await api.delete(`/invoices/${invoice.id}`)).status).toBe(200);
    expect((await api.delete(`/prices/${extra.body.id}`)).status).toBe(200);
  });

  it("clears the product's default_price (product.updated) when the default price goes", async () => {
    const product = await createProduct(api);
    expect((await api.delete(`/prices/${product.default_price}`)).status).toBe(200);
    const after = (await api.get(`/products/${product.id}`)).body;
    expect(after).toMatchObject({ default_price: null, updated: expect.any(Number) });
    const productEvents = (await eventsOf(app.prisma, accountId)).filter(
      (event) => (event.data as { id: string }).id === product.id,
    );
    expect(productEvents.map((event) => event.type)).toEqual(['product.created', 'product.updated']);
    expect(productEvents[1]!.data).toEqual(after);
  });

  it('refuses (409) a price that has been billed, and keeps it', async () => {
    const product = await createProduct(api);
    await billPrices(app.prisma, accountId, [product.default_price]);
    const response = await api.delete(`/prices/${product.default_price}`);
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({ type: 'conflict', code: 'price_billed' });
    expect(response.body.error.message).toMatch(/billed/);
    expect((await api.get(`/prices/${product.default_price}`)).body.active).toBe(true);
  });

  it('refuses (409) a price a subscription uses, and keeps it', async () => {
    const product = await createProduct(api, { ...monthlyPrice });
    // Test setup writes the subscription rows directly: the subscriptions API comes with a later issue.
    await attachToSubscription(app.prisma, accountId, product.default_price);
    const response = await api.delete(`/prices/${product.default_price}`);
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({ type: 'conflict', code: 'price_in_use' });
    expect(response.body.error.message).toMatch(/subscription/);
    expect((await api.get(`/prices/${product.default_price}`)).status).toBe(200);
  });
});

describe('PATCH /prices/{id}/inactive', () => {
  it('updates the given attributes of a never-billed price and writes price.updated', async () => {
    const product = await createProduct(api);
    const price = await createPrice(product.id);
    const response = await api.patch(`/prices/${price.id}/inactive`, {
      unit_amount: 99999999,
      tax_behavior: 'inclusive',
      description: 'New',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ignored-fields')).toBeNull();
    expect(response.body).toEqual({
      ...price,
      unit_amount: 99999999,
      tax_behavior: 'inclusive',
      description: 'New',
      updated: expect.any(Number),
      updated_ms: expect.any(Number),
    });

    const recurring = await api.patch(`/prices/${price.id}/inactive`, {
      type: 'recurring',
      recurring: { interval: 'year', interval_count: 1 },
    });
    expect(recurring.body).toMatchObject({
      type: 'recurring',
      recurring: { interval: 'year', interval_count: 1 },
      unit_amount: 99999999,
    });
    const interval = await api.patch(`/prices/${price.id}/inactive`, {
      recurring: { interval: 'month', interval_count: 3 },
    });
    expect(interval.body).toMatchObject({ type: 'recurring', recurring: { interval: 'month', interval_count: 3 } });
    const back = await api.patch(`/prices/${price.id}/inactive`, {
      type: 'one_time',
      currency: 'usd',
      unit_amount: 0,
      description: null,
    });
    expect(back.body).toMatchObject({
      type: 'one_time',
      recurring: null,
      currency: 'USD',
      unit_amount: 0,
      description: null,
      active: false,
    });

    const updates = (await priceEvents(price.id)).filter((event) => event.type === 'price.updated');
    expect(updates).toHaveLength(4);
    expect(updates.at(-1)!.data).toEqual(back.body);
  });

  it('changes nothing for an empty body (no event)', async () => {
    const product = await createProduct(api);
    const response = await api.patch(`/prices/${product.default_price}/inactive`, {});
    expect(response.status).toBe(200);
    expect(response.body.updated).toBeNull();
    expect((await priceEvents(product.default_price)).map((event) => event.type)).toEqual(['price.created']);
  });

  it.each([
    [{ unit_amount: 100000000 }, 'unit_amount'],
    [{ unit_amount: -1 }, 'unit_amount'],
    [{ unit_amount: 1.5 }, 'unit_amount'],
    [{ description: 'd'.repeat(256) }, 'description'],
    [{ currency: 'CAD' }, 'currency'],
    [{ type: 'recurring' }, 'recurring'], // one_time -> recurring needs an interval
    [{ recurring: { interval: 'month', interval_count: 1 } }, 'recurring'], // still one_time
    [{ type: 'one_time', recurring: { interval: 'month', interval_count: 1 } }, 'recurring'],
    [{ recurring: { interval: 'fortnight', interval_count: 1 } }, 'recurring.interval'],
    [{ active: true }, 'active'],
    [{ product: 'prod_x' }, 'product'],
  ])('rejects %j with 400 naming %s and changes nothing', async (body, param) => {
    const product = await createProduct(api);
    const before = (await api.get(`/prices/${product.default_price}`)).body;
    const response = await api.patch(`/prices/${product.default_price}/inactive`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
    expect((await api.get(`/prices/${product.default_price}`)).body).toEqual(before);
  });

  it('applies only the description when a subscription uses the price, and says which fields it ignored', async () => {
    const product = await createProduct(api, { ...monthlyPrice });
    // Test setup writes the subscription rows directly: the subscriptions API comes with a later issue.
    await attachToSubscription(app.prisma, accountId, product.default_price);
    const before = (await api.get(`/prices/${product.default_price}`)).body;
    const response = await api.patch(`/prices/${product.default_price}/inactive`, {
      unit_amount: 1,
      currency: 'USD',
      type: 'one_time',
      tax_behavior: 'inclusive',
      description: 'Only this',
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...before,
      description: 'Only this',
      updated: expect.any(Number),
      updated_ms: expect.any(Number),
    });
    expect(response.headers.get('x-ignored-fields')).toBe('currency,unit_amount,type,tax_behavior');

    const nothing = await api.patch(`/prices/${product.default_price}/inactive`, { unit_amount: 5 });
    expect(nothing.status).toBe(200);
    expect(nothing.body).toEqual(response.body);
    expect(nothing.headers.get('x-ignored-fields')).toBe('unit_amount');
    expect((await priceEvents(product.default_price)).map((event) => event.type)).toEqual([
      'price.created',
      'price.updated',
    ]);
  });

  it('refuses (409) a price that has been billed', async () => {
    const product = await createProduct(api);
    await billPrices(app.prisma, accountId, [product.default_price]);
    const response = await api.patch(`/prices/${product.default_price}/inactive`, { description: 'x' });
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({ type: 'conflict', code: 'price_active' });
    expect(response.body.error.message).toContain('/active');
  });
});

describe('PATCH /prices/{id}/inactive on a price a draft invoice bills', () => {
  it('refuses to change what it bills (409 price_in_use, as DELETE) but lets the description change', async () => {
    const product = await createProduct(api);
    const { customer } = await customerWithCard(api);
    const invoice = await createInvoice(api, { customer: customer.id, lines: [{ price: product.default_price }] });
    const refused = await api.patch(`/prices/${product.default_price}/inactive`, { unit_amount: 1 });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: 'conflict', code: 'price_in_use' });
    expect((await api.get(`/prices/${product.default_price}`)).body.unit_amount).toBe(oneTimePrice.unit_amount);

    const described = await api.patch(`/prices/${product.default_price}/inactive`, { description: 'Still fine' });
    expect(described.status).toBe(200);
    expect(described.body.description).toBe('Still fine');

    expect((await api.delete(`/invoices/${invoice.id}`)).status).toBe(200);
    const changed = await api.patch(`/prices/${product.default_price}/inactive`, { unit_amount: 1 });
    expect(changed.status).toBe(200);
    expect(changed.body.unit_amount).toBe(1);
  });
});

describe('PATCH /prices/{id}/active', () => {
  it('changes only the description, never the active flag, for billed and unbilled prices', async () => {
    const product = await createProduct(api);
    const unbilled = await api.patch(`/prices/${product.default_price}/active`, { description: 'Still inactive' });
    expect(unbilled.status).toBe(200);
    expect(unbilled.body).toMatchObject({ description: 'Still inactive', active: false });

    await billPrices(app.prisma, accountId, [product.default_price]);
    const billed = await api.patch(`/prices/${product.default_price}/active`, { description: 'd'.repeat(255) });
    expect(billed.body).toMatchObject({
      description: 'd'.repeat(255),
      active: true,
      unit_amount: oneTimePrice.unit_amount,
    });
    const cleared = await api.patch(`/prices/${product.default_price}/active`, { description: null });
    expect(cleared.body).toMatchObject({ description: null, active: true });

    const types = (await priceEvents(product.default_price)).map((event) => event.type);
    expect(types).toEqual(['price.created', 'price.updated', 'price.updated', 'price.updated', 'price.updated']);
  });

  it.each([
    [{ active: false }, 'active'],
    [{ unit_amount: 5 }, 'unit_amount'],
    [{ description: 'd'.repeat(256) }, 'description'],
    [{ description: 5 }, 'description'],
  ])('rejects %j with 400 naming %s', async (body, param) => {
    const product = await createProduct(api);
    const response = await api.patch(`/prices/${product.default_price}/active`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });
});

describe('markPricesBilled (the internal function invoicing calls)', () => {
  it('marks prices billed and active for good, writing price.updated once per price that changes', async () => {
    const product = await createProduct(api);
    const second = await createPrice(product.id);
    expect(await billPrices(app.prisma, accountId, [product.default_price, second.id, product.default_price])).toEqual(
      [product.default_price, second.id].sort(),
    );
    expect(await billPrices(app.prisma, accountId, [second.id])).toEqual([]);
    for (const id of [product.default_price, second.id]) {
      const price = (await api.get(`/prices/${id}`)).body;
      expect(price.active).toBe(true);
      const updates = (await priceEvents(id)).filter((event) => event.type === 'price.updated');
      expect(updates).toHaveLength(1);
      expect(updates[0]!.data).toEqual(price);
    }
  });

  it('is a 404 for an unknown or foreign price, and rolls back with the caller', async () => {
    const product = await createProduct(api);
    const foreign = await createProduct(other);
    await expect(billPrices(app.prisma, accountId, [product.default_price, 'price_unknown'])).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      billPrices(app.prisma, accountId, [product.default_price, foreign.default_price]),
    ).rejects.toMatchObject({ status: 404 });
    expect((await api.get(`/prices/${product.default_price}`)).body.active).toBe(false);
    expect((await other.get(`/prices/${foreign.default_price}`)).body.active).toBe(false);
    expect((await priceEvents(product.default_price)).map((event) => event.type)).toEqual(['price.created']);
  });

  it('lets one of two concurrent billings change the price and write the event', async () => {
    const product = await createProduct(api);
    const results = await Promise.all([
      app.prisma.$transaction((tx) => markPricesBilled(tx, accountId, [product.default_price])),
      app.prisma.$transaction((tx) => markPricesBilled(tx, accountId, [product.default_price])),
    ]);
    expect(results.flat()).toEqual([product.default_price]);
    expect((await priceEvents(product.default_price)).filter((event) => event.type === 'price.updated')).toHaveLength(
      1,
    );
  });
});

describe('concurrent DELETE and billing of one price', () => {
  it('either deletes the price (billing then 404s) or bills it (the delete then 409s)', async () => {
    for (let round = 0; round < 5; round += 1) {
      const product = await createProduct(api);
      const priceId = product.default_price;
      const [deleted, billed] = await Promise.allSettled([
        api.delete(`/prices/${priceId}`),
        billPrices(app.prisma, accountId, [priceId]),
      ]);
      const deleteStatus = deleted.status === 'fulfilled' ? deleted.value.status : 500;
      const price = await app.prisma.price.findUnique({ where: { id: priceId } });
      if (deleteStatus === 200) {
        expect(billed).toMatchObject({ status: 'rejected', reason: { status: 404 } });
        expect(price).toBeNull();
      } else {
        expect(deleteStatus).toBe(409);
        expect(billed).toMatchObject({ status: 'fulfilled', value: [priceId] });
        expect(price!.billedAt).not.toBeNull();
      }
    }
  });
});

describe('findPrice and findPricesForUse', () => {
  it("find the account's prices and answer 404 for another account's", async () => {
    const product = await createProduct(api);
    expect(await findPrice(app.prisma, accountId, product.default_price)).toEqual(
      (await api.get(`/prices/${product.default_price}`)).body,
    );
    await expect(findPrice(app.prisma, otherAccountId, product.default_price)).rejects.toMatchObject({ status: 404 });
    const second = await createPrice(product.id);
    const found = await app.prisma.$transaction((tx) =>
      findPricesForUse(tx, accountId, [second.id, product.default_price]),
    );
    expect(found.map((price) => price.id)).toEqual([second.id, product.default_price]);
    await expect(
      app.prisma.$transaction((tx) => findPricesForUse(tx, otherAccountId, [second.id])),
    ).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining(second.id),
    });
  });
});

describe('account isolation', () => {
  it("answers 404 for another account's price on every endpoint and changes nothing", async () => {
    const product = await createProduct(api);
    const id = product.default_price;
    const before = (await api.get(`/prices/${id}`)).body;
    for (const response of [
      await other.get(`/prices/${id}`),
      await other.delete(`/prices/${id}`),
      await other.patch(`/prices/${id}/inactive`, { unit_amount: 1 }),
      await other.patch(`/prices/${id}/active`, { description: 'Stolen' }),
      await other.post(`/prices/${product.id}`, oneTimePrice),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.error.type).toBe('not_found');
    }
    expect((await other.get(`/prices?search=${encodeURIComponent(JSON.stringify({ ids: id }))}`)).body.data).toEqual(
      [],
    );
    expect((await other.get(`/prices?search=${id}`)).body.data).toEqual([]);
    expect((await api.get(`/prices/${id}`)).body).toEqual(before);
  });
});

describe('OpenAPI', () => {
  it('documents every price endpoint', async () => {
    const document = (await apiClient(app.baseUrl).get('/openapi.json')).body;
    expect(Object.keys(document.paths['/prices'])).toEqual(['get']);
    expect(Object.keys(document.paths['/prices/{id}']).sort()).toEqual(['delete', 'get', 'post']);
    expect(document.paths['/prices/{id}/inactive'].patch).toBeDefined();
    expect(document.paths['/prices/{id}/active'].patch).toBeDefined();
  });
});
