import {
  apiClient,
  createTestAccount,
  eventsOf,
  type ApiClient,
  type TestApp,
  startTwoAccountApp,
} from '../support/harness';
import { attachToSubscription, billPrices, createProduct, monthlyPrice, oneTimePrice } from '../support/catalog';

let app: TestApp;
let api: ApiClient;
let accountId: string;
let other: ApiClient;

beforeAll(async () => {
  ({ app, api, accountId, other } = await startTwoAccountApp());
});

afterAll(() => app.close());

/** A fresh account with its own client, for tests that count or list. */
async function freshAccount() {
  const account = await createTestAccount(app.prisma);
  return { ...account, client: apiClient(app.baseUrl, account.apiKey) };
}

function eventsAbout(id: string) {
  return eventsOf(app.prisma, accountId).then((events) =>
    events.filter(
      (event) =>
        (event.data as { id?: string; product?: string }).id === id ||
        (event.data as { product?: string }).product === id,
    ),
  );
}

describe('POST /products', () => {
  it('creates the product and its default price in one go, with product.created and price.created', async () => {
    const response = await api.post('/products', {
      name: 'Pro plan',
      description: 'Everything, monthly',
      tax_code: 'txcd_10103001',
      ...monthlyPrice,
      tax_behavior: 'inclusive',
    });
    expect(response.status).toBe(201);
    const product = response.body;
    expect(product).toEqual({
      id: expect.stringMatching(/^prod_[a-zA-Z0-9]+$/),
      object: 'product',
      active: true,
      created: expect.any(Number),
      default_price: expect.stringMatching(/^price_[a-zA-Z0-9]+$/),
      description: 'Everything, monthly',
      name: 'Pro plan',
      tax_code: 'txcd_10103001',
      updated: null,
      updated_ms: expect.any(Number),
    });
    expect(Math.abs(product.created - Date.now() / 1000)).toBeLessThan(60);

    const price = await api.get(`/prices/${product.default_price}`);
    expect(price.body).toEqual({
      id: product.default_price,
      object: 'price',
      product: product.id,
      active: false,
      currency: 'USD',
      unit_amount: 2000,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed', meter: null },
      billing_scheme: 'per_unit',
      tiers_mode: null,
      tiers: null,
      transform_quantity: null,
      tax_behavior: 'inclusive',
      description: null,
      created: product.created,
      updated: null,
      updated_ms: expect.any(Number),
    });

    const events = await eventsAbout(product.id);
    expect(events.map((event) => event.type)).toEqual(['product.created', 'price.created']);
    expect(events[0]!.data).toEqual(product);
    expect(events[1]!.data).toEqual(price.body);
  });

  it('applies the defaults: tax_code txcd_00000000 (also for null), tax_behavior exclusive, lower-case usd', async () => {
    const product = await createProduct(api, { currency: 'usd' });
    expect(product.tax_code).toBe('txcd_00000000');
    expect(product.description).toBeNull();
    const price = (await api.get(`/prices/${product.default_price}`)).body;
    expect(price).toMatchObject({ currency: 'USD', tax_behavior: 'exclusive', type: 'one_time', recurring: null });
    expect((await createProduct(api, { tax_code: null })).tax_code).toBe('txcd_00000000');
    expect((await createProduct(api, { recurring: null })).default_price).toMatch(/^price_/);
  });

  it.each([
    ['name of 100 characters', { name: 'n'.repeat(100) }],
    ['description of 255 characters', { description: 'd'.repeat(255) }],
    ['unit_amount 99999999', { unit_amount: 99999999 }],
    ['unit_amount 0', { unit_amount: 0 }],
    ['interval_count 36 months', { ...monthlyPrice, recurring: { interval: 'month', interval_count: 36 } }],
    ['interval_count 3 years', { ...monthlyPrice, recurring: { interval: 'year', interval_count: 3 } }],
    ['interval_count 1095 days', { ...monthlyPrice, recurring: { interval: 'day', interval_count: 1095 } }],
    ['tax code first of a range (10201000-10201004)', { tax_code: 'txcd_10201000' }],
    ['tax code last of a range (10201000-10201004)', { tax_code: 'txcd_10201004' }],
    ['tax code first of a range (32050017-32050041)', { tax_code: 'txcd_32050017' }],
    ['tax code last of a range (32050017-32050041)', { tax_code: 'txcd_32050041' }],
    ['single tax code 99999999', { tax_code: 'txcd_99999999' }],
    ['single tax code 92010001 (last in the list)', { tax_code: 'txcd_92010001' }],
  ])('accepts %s', async (_label, body) => {
    const response = await api.post('/products', { name: `Edge ${Math.random()}`, ...oneTimePrice, ...body });
    expect(response.status).toBe(201);
  });

  it.each([
    [{ name: undefined }, 'name', 'parameter_missing'],
    [{ name: '' }, 'name', 'parameter_invalid'],
    [{ name: '   ' }, 'name', 'parameter_invalid'],
    [{ name: 'n'.repeat(101) }, 'name', 'parameter_invalid'],
    [{ name: 7 }, 'name', 'parameter_invalid'],
    [{ description: 'd'.repeat(256) }, 'description', 'parameter_invalid'],
    [{ unit_amount: 100000000 }, 'unit_amount', 'parameter_invalid'],
    [{ unit_amount: -1 }, 'unit_amount', 'parameter_invalid'],
    [{ unit_amount: 1.5 }, 'unit_amount', 'parameter_invalid'],
    [{ unit_amount: '100' }, 'unit_amount', 'parameter_invalid'],
    [{ unit_amount: undefined }, 'unit_amount', 'parameter_missing'],
    [{ currency: 'EUR' }, 'currency', 'parameter_invalid'],
    [{ currency: undefined }, 'currency', 'parameter_missing'],
    [{ type: 'monthly' }, 'type', 'parameter_invalid'],
    [{ type: undefined }, 'type', 'parameter_missing'],
    [{ type: 'recurring' }, 'recurring', 'parameter_invalid'],
    [{ type: 'recurring', recurring: null }, 'recurring', 'parameter_invalid'],
    [{ recurring: { interval: 'month', interval_count: 1 } }, 'recurring', 'parameter_invalid'],
    [
      { ...monthlyPrice, recurring: { interval: 'hour', interval_count: 1 } },
      'recurring.interval',
      'parameter_invalid',
    ],
    [{ ...monthlyPrice, recurring: { interval: 'month' } }, 'recurring.interval_count', 'parameter_missing'],
    [
      { ...monthlyPrice, recurring: { interval: 'month', interval_count: 0 } },
      'recurring.interval_count',
      'parameter_invalid',
    ],
    [
      { ...monthlyPrice, recurring: { interval: 'month', interval_count: 1.5 } },
      'recurring.interval_count',
      'parameter_invalid',
    ],
    [
      { ...monthlyPrice, recurring: { interval: 'month', interval_count: 37 } },
      'recurring.interval_count',
      'parameter_invalid',
    ],
    [
      { ...monthlyPrice, recurring: { interval: 'year', interval_count: 4 } },
      'recurring.interval_count',
      'parameter_invalid',
    ],
    [
      { ...monthlyPrice, recurring: { interval: 'month', interval_count: 1, anchor: 1 } },
      'recurring.anchor',
      'parameter_unknown',
    ],
    [{ tax_behavior: 'both' }, 'tax_behavior', 'parameter_invalid'],
    [{ tax_code: 'txcd_10201005' }, 'tax_code', 'parameter_invalid'], // one past 10201000-10201004
    [{ tax_code: 'txcd_10200999' }, 'tax_code', 'parameter_invalid'], // one before it
    [{ tax_code: 'txcd_32050042' }, 'tax_code', 'parameter_invalid'], // one past 32050017-32050041
    [{ tax_code: 'txcd_10202002' }, 'tax_code', 'parameter_invalid'], // between 10202001 and 10202003
    [{ tax_code: 'txcd_123' }, 'tax_code', 'parameter_invalid'],
    [{ tax_code: 'tax_00000000' }, 'tax_code', 'parameter_invalid'],
    [{ tax_code: 12345678 }, 'tax_code', 'parameter_invalid'],
    [{ active: false }, 'active', 'parameter_unknown'],
  ])('rejects %j with 400 naming %s, writing nothing', async (patch, param, code) => {
    const { accountId: freshId, client } = await freshAccount();
    const body: Record<string, unknown> = { name: 'Bad product', ...oneTimePrice, ...patch };
    for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
    const response = await client.post('/products', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param, code });
    expect(await app.prisma.product.count({ where: { accountId: freshId } })).toBe(0);
    expect(await app.prisma.price.count({ where: { accountId: freshId } })).toBe(0);
    expect(await app.prisma.event.count({ where: { accountId: freshId } })).toBe(0);
  });

  it('refuses a duplicate name in the account (400 on name, case-insensitive) but not in another account', async () => {
    const { client } = await freshAccount();
    expect((await client.post('/products', { name: 'Widget', ...oneTimePrice })).status).toBe(201);
    for (const name of ['Widget', 'WIDGET', 'widget']) {
      const duplicate = await client.post('/products', { name, ...oneTimePrice });
      expect(duplicate.status).toBe(400);
      expect(duplicate.body.error).toMatchObject({ type: 'invalid_request_error', param: 'name', code: 'name_taken' });
    }
    expect((await client.post('/products', { name: 'Widget 2', ...oneTimePrice })).status).toBe(201);
    expect((await other.post('/products', { name: 'Widget', ...oneTimePrice })).status).toBe(201);
  });

  it('lets exactly one of many concurrent creations with the same name through', async () => {
    const { accountId: freshId, client } = await freshAccount();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => client.post('/products', { name: 'Race', ...oneTimePrice })),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
    for (const response of responses.filter((r) => r.status === 400)) expect(response.body.error.param).toBe('name');
    expect(await app.prisma.product.count({ where: { accountId: freshId } })).toBe(1);
    expect(await app.prisma.price.count({ where: { accountId: freshId } })).toBe(1);
    expect(await app.prisma.event.count({ where: { accountId: freshId } })).toBe(2);
  });
});

describe('GET /products/taxCodes', () => {
  it('answers the 637 allowed codes with their category names', async () => {
    const response = await api.get('/products/taxCodes');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toHaveLength(637);
    expect(response.body).toMatchObject({ txcd_00000000: 'Nontaxable', txcd_99999999: 'General - Tangible Goods' });
    for (const [code, name] of Object.entries(response.body)) {
      expect(code).toMatch(/^txcd_\d{8}$/);
      expect(typeof name === 'string' && name.length > 0).toBe(true);
    }
  });

  it('filters by code or category name, case-insensitively', async () => {
    const byName = await api.get('/products/taxCodes?search=NONTAXABLE');
    expect(byName.body).toMatchObject({ txcd_00000000: 'Nontaxable' });
    expect(Object.values(byName.body).every((name) => (name as string).toLowerCase().includes('nontaxable'))).toBe(
      true,
    );
    expect(Object.keys((await api.get('/products/taxCodes?search=txcd_1020100')).body)).toHaveLength(5);
    expect((await api.get('/products/taxCodes?search=zzzz-nothing')).body).toEqual({});
    const unknown = await api.get('/products/taxCodes?colour=red');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('colour');
  });

  it('needs an API key', async () => {
    expect((await apiClient(app.baseUrl).get('/products/taxCodes')).status).toBe(401);
  });
});

describe('GET /products', () => {
  let list: ApiClient;
  let products: { id: string; name: string; created: number; tax_code: string }[];

  beforeAll(async () => {
    const fresh = await freshAccount();
    list = fresh.client;
    products = [];
    const specs = [
      { name: 'Alpha shirt', description: 'Cotton', tax_code: 'txcd_99999999' },
      { name: 'Beta mug', description: 'Ceramic SHIRT-coloured', tax_code: 'txcd_00000000' },
      { name: 'Gamma hosting', tax_code: 'txcd_10000000' },
      { name: 'Delta support', tax_code: 'txcd_20030000' },
      { name: 'Epsilon', tax_code: 'txcd_99999999' },
    ];
    for (const [index, spec] of specs.entries()) {
      const product = await createProduct(list, spec);
      // Spread the creation times (1000 s apart) so the created filters have something to tell apart.
      const createdAt = new Date((1_700_000_000 + index * 1000) * 1000);
      await app.prisma.product.update({ where: { id: product.id }, data: { createdAt } });
      products.push({ ...product, created: createdAt.getTime() / 1000 });
    }
  });

  const names = (body: { data: { name: string }[] }) => body.data.map((product) => product.name);
  const get = (query: string) => list.get(`/products?${query}`);
  const search = (filter: unknown) =>
    get(`search=${encodeURIComponent(typeof filter === 'string' ? filter : JSON.stringify(filter))}`);

  it('pages newest first in a {data, meta} envelope, 10 by default', async () => {
    const all = await get('');
    expect(all.status).toBe(200);
    expect(all.body.meta).toEqual({ page: 1, take: 10, itemsTotal: 5, pagesTotal: 1 });
    expect(names(all.body)).toEqual(['Epsilon', 'Delta support', 'Gamma hosting', 'Beta mug', 'Alpha shirt']);
    const second = await get('take=2&page=2');
    expect(names(second.body)).toEqual(['Gamma hosting', 'Beta mug']);
    expect(second.body.meta).toEqual({ page: 2, take: 2, itemsTotal: 5, pagesTotal: 3 });
    expect((await get('take=2&page=4')).body).toEqual({
      data: [],
      meta: { page: 4, take: 2, itemsTotal: 5, pagesTotal: 3 },
    });
    expect((await get('take=50')).status).toBe(200);
    expect((await get('take=1')).body.data).toHaveLength(1);
  });

  it.each([
    ['take=51', 'take'],
    ['take=0', 'take'],
    ['take=2.5', 'take'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=x', 'page'],
    ['sort=name', 'sort'],
  ])('rejects ?%s with 400 naming %s', async (query, param) => {
    const response = await get(query);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });

  it('searches plain text in name and description, case-insensitively', async () => {
    expect(names((await search('shirt')).body)).toEqual(['Beta mug', 'Alpha shirt']);
    expect(names((await search('HOSTING')).body)).toEqual(['Gamma hosting']);
    expect(names((await search('nothing like it')).body)).toEqual([]);
    expect((await search('')).body.meta.itemsTotal).toBe(5);
  });

  it('filters with the JSON keys active, tax_code, ids and created', async () => {
    expect((await search({ active: true })).body.meta.itemsTotal).toBe(5);
    expect((await search({ active: false })).body.meta.itemsTotal).toBe(0);
    expect(names((await search({ tax_code: 'txcd_99999999' })).body)).toEqual(['Epsilon', 'Alpha shirt']);
    expect(names((await search({ ids: `${products[0]!.id}, ${products[3]!.id}` })).body)).toEqual([
      'Delta support',
      'Alpha shirt',
    ]);
    const base = products[0]!.created;
    expect(names((await search({ created: { gt: base + 2000 } })).body)).toEqual(['Epsilon', 'Delta support']);
    expect(names((await search({ created: { gte: base + 2000 } })).body)).toEqual([
      'Epsilon',
      'Delta support',
      'Gamma hosting',
    ]);
    expect(names((await search({ created: { lt: base + 1000 } })).body)).toEqual(['Alpha shirt']);
    expect(names((await search({ created: { lte: base + 1000 } })).body)).toEqual(['Beta mug', 'Alpha shirt']);
    expect(names((await search({ created: { gt: base, lt: base + 3000 } })).body)).toEqual([
      'Gamma hosting',
      'Beta mug',
    ]);
    expect(names((await search({ tax_code: 'txcd_99999999', created: { gte: base + 1 } })).body)).toEqual(['Epsilon']);
    expect(names((await search({})).body)).toHaveLength(5);
    const paged = await list.get(
      `/products?take=1&page=2&search=${encodeURIComponent(JSON.stringify({ tax_code: 'txcd_99999999' }))}`,
    );
    expect(paged.body).toMatchObject({
      data: [{ name: 'Alpha shirt' }],
      meta: { page: 2, take: 1, itemsTotal: 2, pagesTotal: 2 },
    });
  });

  it.each([
    ['{"active": tru', 'search'],
    ['{', 'search'],
    [{ colour: 'red' }, 'search.colour'],
    [{ active: 'yes' }, 'search.active'],
    [{ tax_code: 5 }, 'search.tax_code'],
    [{ ids: ['prod_1'] }, 'search.ids'],
    [{ ids: 'prod_1,not an id' }, 'search.ids.1'],
    [{ created: 5 }, 'search.created'],
    [{ created: { gt: 'yesterday' } }, 'search.created.gt'],
    [{ created: { eq: 5 } }, 'search.created.eq'],
  ])('rejects the JSON filter %j with 400 naming %s', async (filter, param) => {
    const response = await search(filter);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it("never lists another account's products", async () => {
    const response = await other.get(
      `/products?take=50&search=${encodeURIComponent(JSON.stringify({ ids: products.map((p) => p.id).join(',') }))}`,
    );
    expect(response.body.data).toEqual([]);
  });
});

describe('GET, PATCH /products/{id}', () => {
  it('gets a product; unknown ids are 404; malformed ids 400 naming id', async () => {
    const product = await createProduct(api);
    expect((await api.get(`/products/${product.id}`)).body).toEqual(product);
    const missing = await api.get('/products/prod_doesnotexist');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found', code: 'resource_missing' });
    for (const bad of ['PROD_1', 'prod-1', 'prod_', '_abc', 'prod_a%20b']) {
      const response = await api.get(`/products/${bad}`);
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe('id');
    }
  });

  it('changes only the given fields, bumps updated and writes product.updated', async () => {
    const product = await createProduct(api, { description: 'Old', tax_code: 'txcd_99999999' });
    const renamed = await api.patch(`/products/${product.id}`, { name: 'Renamed product' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      ...product,
      name: 'Renamed product',
      updated: expect.any(Number),
      updated_ms: expect.any(Number),
    });
    expect(renamed.body.updated_ms).toBeGreaterThan(product.updated_ms);
    expect(renamed.body.updated).toBeGreaterThanOrEqual(product.created);

    const retaxed = await api.patch(`/products/${product.id}`, { description: null, tax_code: 'txcd_10000000' });
    expect(retaxed.body).toMatchObject({ name: 'Renamed product', description: null, tax_code: 'txcd_10000000' });
    const reset = await api.patch(`/products/${product.id}`, { tax_code: null, description: 'd'.repeat(255) });
    expect(reset.body).toMatchObject({ tax_code: 'txcd_00000000', description: 'd'.repeat(255) });

    const same = await api.patch(`/products/${product.id}`, { name: 'Renamed product' });
    expect(same.status).toBe(200); // its own name is not a duplicate

    const updates = (await eventsAbout(product.id)).filter((event) => event.type === 'product.updated');
    expect(updates.map((event) => (event.data as { name: string; tax_code: string }).tax_code)).toEqual([
      'txcd_99999999',
      'txcd_10000000',
      'txcd_00000000',
      'txcd_00000000',
    ]);
    expect(updates.at(-1)!.data).toEqual(same.body);
  });

  it('changes nothing for an empty body (no event, updated kept)', async () => {
    const product = await createProduct(api);
    const response = await api.patch(`/products/${product.id}`, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(product);
    expect((await eventsAbout(product.id)).map((event) => event.type)).toEqual(['product.created', 'price.created']);
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'n'.repeat(101) }, 'name'],
    [{ name: null }, 'name'],
    [{ description: 'd'.repeat(256) }, 'description'],
    [{ tax_code: 'txcd_10201005' }, 'tax_code'],
    [{ tax_code: 'nope' }, 'tax_code'],
    [{ unit_amount: 5 }, 'unit_amount'],
    [{ active: false }, 'active'],
  ])('rejects PATCH %j with 400 naming %s and changes nothing', async (body, param) => {
    const product = await createProduct(api);
    const response = await api.patch(`/products/${product.id}`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
    expect((await api.get(`/products/${product.id}`)).body).toEqual(product);
  });

  it('accepts a 100-character name on PATCH', async () => {
    const product = await createProduct(api);
    expect((await api.patch(`/products/${product.id}`, { name: 'p'.repeat(100) })).status).toBe(200);
  });

  it("refuses renaming to another product's name (any case) with 400 on name", async () => {
    const first = await createProduct(api, { name: 'Taken name' });
    const second = await createProduct(api);
    const response = await api.patch(`/products/${second.id}`, { name: 'TAKEN NAME' });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ param: 'name', code: 'name_taken' });
    expect((await api.get(`/products/${second.id}`)).body.name).toBe(second.name);
    expect(first.name).toBe('Taken name');
  });
});

describe('DELETE /products/{id}', () => {
  it('deletes the product and all its never-billed prices, with price.deleted events then product.deleted', async () => {
    const product = await createProduct(api, { name: 'Short-lived' });
    const extra = await api.post(`/prices/${product.id}`, { ...monthlyPrice });
    expect(extra.status).toBe(201);

    const response = await api.delete(`/products/${product.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: product.id, object: 'product', deleted: true });

    expect((await api.get(`/products/${product.id}`)).status).toBe(404);
    expect((await api.get(`/prices/${product.default_price}`)).status).toBe(404);
    expect((await api.get(`/prices/${extra.body.id}`)).status).toBe(404);
    expect((await api.delete(`/products/${product.id}`)).status).toBe(404);
    expect(await app.prisma.price.count({ where: { productId: product.id } })).toBe(0);

    const types = (await eventsAbout(product.id)).map((event) => event.type);
    expect(types).toEqual([
      'product.created',
      'price.created',
      'price.created',
      'price.deleted',
      'price.deleted',
      'product.deleted',
    ]);
    // The name is free again.
    expect((await api.post('/products', { name: 'Short-lived', ...oneTimePrice })).status).toBe(201);
  });

  it('refuses (409) while one of its prices has been billed, and keeps everything', async () => {
    const product = await createProduct(api);
    const extra = (await api.post(`/prices/${product.id}`, { ...oneTimePrice })).body;
    await billPrices(app.prisma, accountId, [extra.id]);
    const response = await api.delete(`/products/${product.id}`);
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({ type: 'conflict', code: 'product_has_billed_prices' });
    expect(response.body.error.message).toContain(extra.id);
    expect((await api.get(`/products/${product.id}`)).status).toBe(200);
    expect((await api.get(`/prices/${product.default_price}`)).status).toBe(200);
    expect((await eventsAbout(product.id)).map((event) => event.type)).not.toContain('price.deleted');
  });

  it('refuses (409) while a subscription uses one of its prices', async () => {
    const product = await createProduct(api, { ...monthlyPrice });
    await attachToSubscription(app.prisma, accountId, product.default_price);
    const response = await api.delete(`/products/${product.id}`);
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({ type: 'conflict', code: 'product_in_use' });
    expect((await api.get(`/products/${product.id}`)).status).toBe(200);
  });
});

describe('concurrent DELETE /products and POST /prices', () => {
  it('never leaves a price without its product and never answers 500', async () => {
    for (let round = 0; round < 5; round += 1) {
      const product = await createProduct(api);
      const [deleted, created] = await Promise.all([
        api.delete(`/products/${product.id}`),
        api.post(`/prices/${product.id}`, oneTimePrice),
      ]);
      expect(deleted.status).toBe(200);
      // Either the price came first (and was deleted with the product) or the product was already gone.
      expect([201, 404]).toContain(created.status);
      expect(await app.prisma.price.count({ where: { productId: product.id } })).toBe(0);
    }
  });
});

describe('account isolation', () => {
  it("answers 404 for another account's product on every endpoint and changes nothing", async () => {
    const product = await createProduct(api, { description: 'Mine' });
    const id = product.id;
    for (const response of [
      await other.get(`/products/${id}`),
      await other.patch(`/products/${id}`, { name: 'Stolen' }),
      await other.delete(`/products/${id}`),
      await other.post(`/prices/${id}`, { ...oneTimePrice }),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.error.type).toBe('not_found');
    }
    expect((await other.get(`/products?search=Mine`)).body.data).toEqual([]);
    expect((await api.get(`/products/${id}`)).body).toEqual(product);
    expect(await app.prisma.price.count({ where: { productId: id } })).toBe(1);
  });
});

describe('OpenAPI', () => {
  it('documents every product endpoint, with taxCodes declared before {id}', async () => {
    const document = (await apiClient(app.baseUrl).get('/openapi.json')).body;
    expect(Object.keys(document.paths['/products'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(document.paths['/products/{id}'])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
    expect(document.paths['/products/taxCodes'].get).toBeDefined();
  });
});
