import {
  apiClient,
  createTestAccount,
  eventsOf,
  type ApiClient,
  type TestApp,
  startTwoAccountApp,
} from '../support/harness';

let app: TestApp;
let api: ApiClient;
let accountId: string;
let other: ApiClient;

beforeAll(async () => {
  ({ app, api, accountId, other } = await startTwoAccountApp());
});

afterAll(() => app.close());

const fullCustomer = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  description: 'First programmer',
  phone: '+44 20 7946 0000',
  currency: 'usd',
  address: [{ line1: '12 St James Sq', city: 'London', postal_code: 'SW1Y 4JH', country: 'gb' }],
  shipping: {
    name: 'Ada L.',
    phone: '+44 20 7946 0001',
    address: { line1: '1 Dock Rd', city: 'London', country: 'GB' },
  },
};

async function createCustomer(body: object = fullCustomer) {
  const response = await api.post('/customers', body);
  expect(response.status).toBe(201);
  return response.body;
}

describe('POST /customers', () => {
  it('creates a customer with the spec fields, normalised codes, and writes customer.created', async () => {
    const customer = await createCustomer();
    expect(customer).toMatchObject({
      object: 'customer',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      description: 'First programmer',
      phone: '+44 20 7946 0000',
      currency: 'USD',
      address: [{ line1: '12 St James Sq', city: 'London', postal_code: 'SW1Y 4JH', country: 'GB' }],
      shipping: {
        name: 'Ada L.',
        phone: '+44 20 7946 0001',
        address: { line1: '1 Dock Rd', city: 'London', country: 'GB' },
      },
    });
    expect(customer.id).toMatch(/^cus_[a-zA-Z0-9]+$/);
    expect(Math.abs(customer.created - Date.now() / 1000)).toBeLessThan(60);

    const [event] = await app.prisma.event.findMany({
      where: { accountId, type: 'customer.created', data: { path: ['id'], equals: customer.id } },
    });
    expect(event).toBeDefined();
    expect(event!.id).toMatch(/^evt_/);
    expect(event!.data).toEqual(customer);
  });

  it('accepts the minimal body: unset email, currency and shipping are left out, phone and description null, address empty', async () => {
    const customer = await createCustomer({ name: 'Min' });
    expect(customer).toMatchObject({ name: 'Min', phone: null, description: null, address: [] });
    // docs/decisions.md §18: the contract types these as a string or an object, never null.
    for (const key of ['email', 'currency', 'shipping']) expect(customer).not.toHaveProperty(key);
  });

  it.each([
    [{}, 'name', 'parameter_missing'],
    [{ name: '' }, 'name', 'parameter_invalid'],
    [{ name: 'x'.repeat(256) }, 'name', 'parameter_invalid'],
    [{ name: 42 }, 'name', 'parameter_invalid'],
    [{ name: 'A', email: 'not-an-email' }, 'email', 'parameter_invalid'],
    [{ name: 'A', currency: 'US' }, 'currency', 'parameter_invalid'],
    [{ name: 'A', currency: 'XYZ' }, 'currency', 'parameter_invalid'],
    // The document's enum lists the upper- and lower-case spellings; mixed case is neither.
    [{ name: 'A', currency: 'Usd' }, 'currency', 'parameter_invalid'],
    [{ name: 'A', address: [{ country: 'Fr' }] }, 'address.0.country', 'parameter_invalid'],
    [{ name: 'A', phone: 'call me' }, 'phone', 'parameter_invalid'],
    [{ name: 'A', description: 'x'.repeat(1001) }, 'description', 'parameter_invalid'],
    [{ name: 'A', address: { city: 'Paris' } }, 'address', 'parameter_invalid'],
    [{ name: 'A', address: [{ country: 'FRA' }] }, 'address.0.country', 'parameter_invalid'],
    [{ name: 'A', address: [{ country: 'XX' }] }, 'address.0.country', 'parameter_invalid'],
    [{ name: 'A', address: [{ street: 'x' }] }, 'address.0.street', 'parameter_unknown'],
    [{ name: 'A', shipping: { name: 'B', address: {} } }, 'shipping.phone', 'parameter_missing'],
    [{ name: 'A', shipping: { phone: '1', address: {} } }, 'shipping.name', 'parameter_missing'],
    [{ name: 'A', shipping: { name: 'B', phone: '1' } }, 'shipping.address', 'parameter_missing'],
    [
      { name: 'A', shipping: { name: 'B', phone: '1', address: { country: 'ZZ' } } },
      'shipping.address.country',
      'parameter_invalid',
    ],
    [{ name: 'A', nickname: 'x' }, 'nickname', 'parameter_unknown'],
  ])('rejects %j with 400 naming %s', async (body, param, code) => {
    const before = await app.prisma.customer.count({ where: { accountId } });
    const response = await api.post('/customers', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param, code });
    expect(response.body.error.message).toContain(param);
    expect(await app.prisma.customer.count({ where: { accountId } })).toBe(before);
  });

  it('rejects malformed JSON with 400', async () => {
    const response = await api.request('POST', '/customers', '{"name": ', { 'content-type': 'application/json' });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code: 'body_not_json' });
  });
});

describe('GET /customers', () => {
  let listApi: ApiClient;
  const names = ['Charlie', 'Alice', 'Bob', 'Dave', 'Eve'];

  beforeAll(async () => {
    listApi = apiClient(app.baseUrl, (await createTestAccount(app.prisma)).apiKey);
    for (const name of names) {
      expect((await listApi.post('/customers', { name, email: `${name.toLowerCase()}@shop.test` })).status).toBe(201);
    }
  });

  it('returns a bare array, newest first by default', async () => {
    const response = await listApi.get('/customers');
    expect(response.status).toBe(200);
    expect(Array.isArray(response.body)).toBe(true);
    expect(response.body.map((c: { name: string }) => c.name)).toEqual([...names].reverse());
  });

  it('pages with page and take', async () => {
    const first = await listApi.get('/customers?take=2&page=1&order=ASC');
    const second = await listApi.get('/customers?take=2&page=2&order=ASC');
    const third = await listApi.get('/customers?take=2&page=3&order=ASC');
    expect(first.body.map((c: { name: string }) => c.name)).toEqual(['Charlie', 'Alice']);
    expect(second.body.map((c: { name: string }) => c.name)).toEqual(['Bob', 'Dave']);
    expect(third.body.map((c: { name: string }) => c.name)).toEqual(['Eve']);
  });

  it('sorts by name and searches name or email case-insensitively', async () => {
    const sorted = await listApi.get('/customers?sortingField=name&order=ASC');
    expect(sorted.body.map((c: { name: string }) => c.name)).toEqual(['Alice', 'Bob', 'Charlie', 'Dave', 'Eve']);
    const search = await listApi.get('/customers?search=aLI');
    expect(search.body.map((c: { name: string }) => c.name)).toEqual(['Alice']);
    const byEmail = await listApi.get('/customers?search=bob@shop');
    expect(byEmail.body.map((c: { name: string }) => c.name)).toEqual(['Bob']);
  });

  it.each([
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['take=0', 'take'],
    ['take=101', 'take'],
    ['take=1.5', 'take'],
    ['order=UP', 'order'],
    ['sortingField=password', 'sortingField'],
    ['colour=red', 'colour'],
  ])('rejects ?%s with 400 naming %s', async (query, param) => {
    const response = await listApi.get(`/customers?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });

  it('takes 100 at most', async () => {
    expect((await listApi.get('/customers?take=100')).status).toBe(200);
  });
});

describe('GET /customers/search', () => {
  it('returns id, name and email of matches only', async () => {
    const searchApi = apiClient(app.baseUrl, (await createTestAccount(app.prisma)).apiKey);
    await searchApi.post('/customers', { name: 'Grace Hopper', email: 'grace@navy.test' });
    await searchApi.post('/customers', { name: 'Alan Turing', email: 'alan@bletchley.test' });
    const response = await searchApi.get('/customers/search?search=navy');
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      { id: expect.stringMatching(/^cus_/), name: 'Grace Hopper', email: 'grace@navy.test' },
    ]);
    expect((await searchApi.get('/customers/search')).body.error.param).toBe('search');
  });
});

describe('GET, PATCH, DELETE /customers/{externalKey}', () => {
  it('gets a customer; unknown ids are 404, malformed ids 400', async () => {
    const customer = await createCustomer();
    const response = await api.get(`/customers/${customer.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(customer);
    const missing = await api.get('/customers/cus_doesnotexist');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found', code: 'resource_missing' });
    // A malformed id is an unknown customer too (docs/api.md "Conventions").
    const malformed = await api.get('/customers/not-an-id!');
    expect(malformed.status).toBe(404);
    expect(malformed.body.error.param).toBe('externalKey');
  });

  it('patches only the given fields: billingAddress fills address[0], email and phone; shippingAddress fills shipping', async () => {
    const customer = await createCustomer();
    const response = await api.patch(`/customers/${customer.id}`, {
      billingAddress: {
        address1: '1 New St',
        city: 'Bath',
        country: 'gb',
        email: 'ada@new.example',
        phone: '+44 1225 000000',
      },
      shippingAddress: { shippingCity: 'Leeds', shippingPhone: '+44 113 000 0000' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: customer.id,
      name: 'Ada Lovelace',
      email: 'ada@new.example',
      phone: '+44 1225 000000',
      description: 'First programmer',
      address: [{ line1: '1 New St', city: 'Bath', postal_code: 'SW1Y 4JH', country: 'GB' }],
      shipping: {
        name: 'Ada L.',
        phone: '+44 113 000 0000',
        address: { line1: '1 Dock Rd', city: 'Leeds', country: 'GB' },
      },
    });
    const renamed = await api.patch(`/customers/${customer.id}`, {
      name: 'Countess of Lovelace',
      email: 'countess@example.com',
    });
    expect(renamed.body).toMatchObject({
      name: 'Countess of Lovelace',
      email: 'countess@example.com',
      phone: '+44 1225 000000',
    });

    const updates = await app.prisma.event.findMany({
      where: { accountId, type: 'customer.updated', data: { path: ['id'], equals: customer.id } },
      orderBy: { seq: 'asc' },
    });
    expect(updates.map((event) => (event.data as { name: string }).name)).toEqual([
      'Ada Lovelace',
      'Countess of Lovelace',
    ]);
  });

  it('creates shipping from shippingAddress when there was none, named after the customer', async () => {
    const customer = await createCustomer({ name: 'No Ship' });
    const response = await api.patch(`/customers/${customer.id}`, {
      shippingAddress: { shippingAddress1: '9 Road', shippingCountry: 'US' },
    });
    expect(response.body.shipping).toEqual({
      name: 'No Ship',
      phone: null,
      address: { line1: '9 Road', country: 'US' },
    });
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ email: 'nope' }, 'email'],
    [{ billingAddress: { country: 'Britain' } }, 'billingAddress.country'],
    [{ billingAddress: { line1: 'x' } }, 'billingAddress.line1'],
    [{ shippingAddress: { shippingCountry: 'QQ' } }, 'shippingAddress.shippingCountry'],
    [{ address: [] }, 'address'],
  ])('rejects PATCH %j with 400 naming %s and changes nothing', async (body, param) => {
    const customer = await createCustomer();
    const response = await api.patch(`/customers/${customer.id}`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
    expect((await api.get(`/customers/${customer.id}`)).body).toEqual(customer);
  });

  it('deletes: the customer disappears from every endpoint and customer.deleted is written', async () => {
    const customer = await createCustomer({ name: 'Leaving Soon' });
    const response = await api.delete(`/customers/${customer.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: customer.id, object: 'customer', deleted: true });
    expect((await api.get(`/customers/${customer.id}`)).status).toBe(404);
    expect((await api.patch(`/customers/${customer.id}`, { name: 'Back' })).status).toBe(404);
    expect((await api.delete(`/customers/${customer.id}`)).status).toBe(404);
    expect((await api.get('/customers?take=100')).body.map((c: { id: string }) => c.id)).not.toContain(customer.id);
    expect((await api.get('/customers/search?search=Leaving')).body).toEqual([]);
    const types = (await eventsOf(app.prisma, accountId))
      .filter((event) => (event.data as { id: string }).id === customer.id)
      .map((event) => event.type);
    expect(types).toEqual(['customer.created', 'customer.deleted']);
  });

  it("answers a customer's payment methods as an empty page until it has some", async () => {
    const customer = await createCustomer();
    const response = await api.get(`/customers/${customer.id}/payment-methods`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [], meta: { page: 1, take: 10, itemsTotal: 0, pagesTotal: 0 } });
    expect((await api.get(`/customers/${customer.id}/payment-methods/pm_123`)).status).toBe(404);
  });
});

describe('account isolation', () => {
  it("answers 404 for another account's customer on every endpoint and changes nothing", async () => {
    const customer = await createCustomer();
    const id = customer.id;
    expect((await other.get(`/customers/${id}`)).status).toBe(404);
    expect((await other.patch(`/customers/${id}`, { name: 'Stolen' })).status).toBe(404);
    expect((await other.delete(`/customers/${id}`)).status).toBe(404);
    expect((await other.get(`/customers/${id}/payment-methods`)).status).toBe(404);
    expect((await other.get(`/customers/${id}/payment-methods/pm_1`)).status).toBe(404);
    expect((await other.get('/customers?take=100')).body.map((c: { id: string }) => c.id)).not.toContain(id);
    expect((await other.get('/customers/search?search=Ada')).body).toEqual([]);
    expect((await api.get(`/customers/${id}`)).body).toEqual(customer);
  });
});
