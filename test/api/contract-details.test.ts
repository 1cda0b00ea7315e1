import { createProduct } from '../support/catalog';
import {
  apiClient,
  createTestAccount,
  expectStatus,
  eventsOf,
  startTwoAccountApp,
  type ApiClient,
  type ApiResponse,
  type TwoAccountApp,
} from '../support/harness';

// Contract details decided in docs/api.md "Conventions" and docs/decisions.md §16-§17, each through HTTP.

let world: TwoAccountApp;
let api: ApiClient;

beforeAll(async () => {
  world = await startTwoAccountApp();
  api = world.api;
});
afterAll(() => world.app.close());

function errorOf(response: ApiResponse) {
  return {
    status: response.status,
    type: response.body?.error?.type,
    code: response.body?.error?.code,
    param: response.body?.error?.param,
  };
}

describe('malformed ids in paths', () => {
  it('a customer id that cannot exist is 404, exactly like an unknown one', async () => {
    const unknown = await api.get('/customers/cus_000000000000000000000000');
    expect(errorOf(unknown)).toEqual({
      status: 404,
      type: 'not_found',
      code: 'resource_missing',
      param: 'externalKey',
    });
    for (const bad of ['not-an-id', 'CUS_1', 'cus_', 'x'.repeat(200), 'cus_a%20b']) {
      expect(errorOf(await api.get(`/customers/${bad}`))).toEqual({
        status: 404,
        type: 'not_found',
        code: 'resource_missing',
        param: 'externalKey',
      });
    }
    expect((await api.patch('/customers/not-an-id', { name: 'x' })).status).toBe(404);
    expect((await api.delete('/customers/not-an-id')).status).toBe(404);
    expect((await api.get('/customers/not-an-id/payment-methods')).status).toBe(404);
  });

  it('every other get-by-id does the same, except /products/{id}, whose pattern the contract answers with 400', async () => {
    for (const path of [
      '/prices/not-an-id',
      '/taxRates/not-an-id',
      '/invoices/not-a-uuid',
      '/subscriptions/not-an-id',
      '/transactions/not-an-id',
      '/payment-methods/not-an-id',
    ]) {
      expect({ path, ...errorOf(await api.get(path)) }).toEqual({
        path,
        status: 404,
        type: 'not_found',
        code: 'resource_missing',
        param: 'id',
      });
    }
    expect(errorOf(await api.get('/products/not-an-id'))).toEqual({
      status: 400,
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param: 'id',
    });
    expect((await api.get('/products/prod_unknown')).status).toBe(404);
  });
});

describe('query parameters', () => {
  it('every route refuses an unknown one with 400 naming it, single-object routes included', async () => {
    const product = await createProduct(api);
    const customer = (await api.post('/customers', { name: 'Query' })).body;
    for (const path of [
      `/customers/${customer.id}`,
      `/products/${product.id}`,
      '/customers',
      '/balance',
      '/settings/dunning',
      `/prices/${product.default_price}`,
    ]) {
      expect({ path, ...errorOf(await api.get(`${path}?expand=customer`)) }).toEqual({
        path,
        status: 400,
        type: 'invalid_request_error',
        code: 'parameter_unknown',
        param: 'expand',
      });
    }
    // On writes too: nothing is changed.
    const patched = await api.patch(`/customers/${customer.id}?dry_run=true`, { name: 'Changed' });
    expect(errorOf(patched)).toMatchObject({ status: 400, code: 'parameter_unknown', param: 'dry_run' });
    expect((await api.get(`/customers/${customer.id}`)).body.name).toBe('Query');
  });

  it('numbers are decimal integers; a blank value is 400 naming the parameter', async () => {
    for (const [query, param] of [
      ['take=0x10', 'take'],
      ['take=1e1', 'take'],
      ['take=1.0', 'take'],
      ['take=%2010', 'take'],
      ['take=', 'take'],
      ['page=', 'page'],
      ['page=0b1', 'page'],
    ]) {
      expect({ query, ...errorOf(await api.get(`/products?${query}`)) }).toEqual({
        query,
        status: 400,
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        param,
      });
    }
    for (const [query, param] of [
      ['created_gt=', 'created_gt'],
      ['created_lte=0x10', 'created_lte'],
      ['created_gte=1e3', 'created_gte'],
    ]) {
      expect({ query, ...errorOf(await api.get(`/invoices?${query}`)) }).toEqual({
        query,
        status: 400,
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        param,
      });
    }
    const page = await api.get('/products?take=16&page=01');
    expect(page.status).toBe(200);
    expect(page.body.meta).toMatchObject({ take: 16, page: 1 });
    expect((await api.get('/invoices?created_gt=0')).status).toBe(200);
  });

  it("every list's take and page outside their bounds are 400 naming the parameter and its bounds", async () => {
    // A superadmin of an account with payment plans on reaches every list the document has.
    const admin = await createTestAccount(world.app.prisma, { role: 'superadmin', paymentPlans: true });
    const client = apiClient(world.app.baseUrl, admin.apiKey);
    const document = expectStatus(await client.get('/openapi.json'), 200, 'GET /openapi.json');
    type Parameter = { name: string; in: string; schema: { minimum: number; maximum: number; pattern?: string } };
    const lists = Object.entries(document.paths as Record<string, { get?: { parameters?: Parameter[] } }>).flatMap(
      ([template, item]) => {
        const parameters = item.get?.parameters ?? [];
        const take = parameters.find((parameter) => parameter.name === 'take' && parameter.in === 'query');
        const page = parameters.find((parameter) => parameter.name === 'page' && parameter.in === 'query');
        if (!take || !page) return [];
        // A well-formed id for each path parameter (an invoice's is a UUID): the query is checked before it is looked up.
        const path = parameters
          .filter((parameter) => parameter.in === 'path')
          .reduce(
            (built, parameter) =>
              built.replace(
                `{${parameter.name}}`,
                parameter.schema.pattern?.includes('{8}-') ? '00000000-0000-4000-8000-000000000000' : 'xx_0',
              ),
            template,
          );
        return [{ path, take: take.schema, page: page.schema }];
      },
    );
    expect(lists.length).toBeGreaterThanOrEqual(20);
    for (const { path, take, page } of lists) {
      for (const [param, value, bounds] of [
        ['take', '0', take],
        ['take', String(take.maximum + 1), take],
        ['take', 'ten', take],
        ['page', '0', page],
        ['page', '-1', page],
      ] as const) {
        const response = await client.get(`${path}?${param}=${value}`);
        expect({ path, value, ...errorOf(response), message: response.body?.error?.message }).toEqual({
          path,
          value,
          status: 400,
          type: 'invalid_request_error',
          code: 'parameter_invalid',
          param,
          message: `Invalid query parameter '${param}': must be an integer from ${bounds.minimum} to ${bounds.maximum} (decimal digits)`,
        });
      }
    }
    expect(lists.find((list) => list.path === '/products')?.take).toMatchObject({ minimum: 1, maximum: 50 });
  });
});

describe('fixed paths beside /{id} paths', () => {
  it('/customers/search and /products/taxCodes answer 405 with their own Allow for other methods, never as ids', async () => {
    for (const path of ['/customers/search', '/products/taxCodes']) {
      for (const method of ['PATCH', 'DELETE', 'PUT', 'POST']) {
        const response = await api.request(method, path, method === 'DELETE' ? undefined : {});
        expect({ path, method, ...errorOf(response) }).toEqual({
          path,
          method,
          status: 405,
          type: 'invalid_request_error',
          code: 'method_not_allowed',
          param: undefined,
        });
        expect(response.headers.get('allow')).toBe('GET, HEAD');
      }
      const options = await fetch(`${world.app.baseUrl}${path}`, { method: 'OPTIONS' });
      expect(options.status).toBe(204);
      expect(options.headers.get('allow')).toBe('GET, HEAD');
    }
    expect((await api.get('/customers/search?search=a')).status).toBe(200);
    expect((await api.get('/products/taxCodes')).status).toBe(200);
    // The id paths keep their methods.
    const options = await fetch(`${world.app.baseUrl}/customers/cus_abc`, { method: 'OPTIONS' });
    expect(options.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
  });
});

describe('unset optional fields', () => {
  it('a customer without email, currency or shipping leaves them out (answers, lists, search and events); description and phone are null', async () => {
    const customer = (await api.post('/customers', { name: 'Bare Customer' })).body;
    for (const key of ['email', 'currency', 'shipping']) expect(customer).not.toHaveProperty(key);
    expect(customer).toMatchObject({ description: null, phone: null });
    expect((await api.get(`/customers/${customer.id}`)).body).toEqual(customer);
    const listed = (await api.get('/customers?search=Bare%20Customer')).body as { id: string }[];
    expect(listed.find((entry) => entry.id === customer.id)).toEqual(customer);
    expect((await api.get('/customers/search?search=Bare%20Customer')).body).toEqual([
      { id: customer.id, name: 'Bare Customer' },
    ]);
    const events = await eventsOf(world.app.prisma, world.accountId, 'customer.created');
    const data = events.map((event) => event.data as { id: string }).find((entry) => entry.id === customer.id);
    expect(data).toEqual(customer);

    const full = (await api.post('/customers', { name: 'Full', email: 'full@example.com', currency: 'usd' })).body;
    expect(full).toMatchObject({ email: 'full@example.com', currency: 'USD' });
  });

  it('a tax rate without description leaves it out; PATCH description null clears it', async () => {
    const rate = (await api.post('/taxRates', { display_name: 'VAT', percentage: 20, inclusive: true })).body;
    expect(rate).not.toHaveProperty('description');
    const described = (await api.patch(`/taxRates/${rate.id}`, { description: 'Standard rate' })).body;
    expect(described.description).toBe('Standard rate');
    const cleared = (await api.patch(`/taxRates/${rate.id}`, { description: null })).body;
    expect(cleared).not.toHaveProperty('description');
    expect((await api.get(`/taxRates/${rate.id}`)).body).toEqual(cleared);
  });
});

describe('names', () => {
  it('product names are NFC-normalized and trimmed, so look-alikes clash; control and invisible characters are 400 naming name', async () => {
    const product = await createProduct(api, { name: '  Cafe\u0301 Deluxe  ' });
    expect(product.name).toBe('Caf\u00e9 Deluxe');
    for (const lookAlike of ['Caf\u00e9 Deluxe', 'caf\u00e9 deluxe\t', '\u00a0Cafe\u0301 Deluxe']) {
      expect(
        errorOf(await api.post('/products', { name: lookAlike, currency: 'USD', unit_amount: 100, type: 'one_time' })),
      ).toMatchObject({
        status: 400,
        code: 'name_taken',
        param: 'name',
      });
    }
    for (const bad of [
      'Caf\u00e9\u200bDeluxe',
      'Line\nbreak',
      'Tab\tinside',
      'Bell\u0007',
      'Bidi\u202eevil',
      'Soft\u00adhyphen',
      '   ',
    ]) {
      expect({
        bad,
        ...errorOf(await api.post('/products', { name: bad, currency: 'USD', unit_amount: 100, type: 'one_time' })),
      }).toMatchObject({
        bad,
        status: 400,
        code: 'parameter_invalid',
        param: 'name',
      });
      expect(errorOf(await api.patch(`/products/${product.id}`, { name: bad }))).toMatchObject({
        status: 400,
        param: 'name',
      });
    }
    // Emoji sequences keep their zero-width joiner.
    expect((await createProduct(api, { name: 'Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}' })).name).toBe(
      'Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
    );
  });

  it('the same rule holds for customer names and tax rate display names', async () => {
    expect((await api.post('/customers', { name: ' Ada  ' })).body.name).toBe('Ada');
    expect(errorOf(await api.post('/customers', { name: 'Ada\u200b' }))).toMatchObject({
      status: 400,
      code: 'parameter_invalid',
      param: 'name',
    });
    expect(
      errorOf(await api.post('/customers', { name: 'Ada', shipping: { name: 'A\nB', phone: '1', address: {} } })),
    ).toMatchObject({ status: 400, param: 'shipping.name' });
    expect(
      errorOf(await api.post('/taxRates', { display_name: 'VAT\u0000', percentage: 1, inclusive: true })),
    ).toMatchObject({ status: 400, param: 'display_name' });
    expect(
      errorOf(await api.post('/taxRates', { display_name: 'V\u2028AT', percentage: 1, inclusive: true })),
    ).toMatchObject({ status: 400, param: 'display_name' });
  });
});

describe('request bodies', () => {
  it('a body that is not valid UTF-8 is 400 body_not_utf8 and writes nothing', async () => {
    const { apiKey, accountId } = await createTestAccount(world.app.prisma, { name: 'Bytes' });
    for (const bytes of [
      Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xc3]), Buffer.from('"}')]),
    ]) {
      const response = await fetch(`${world.app.baseUrl}/customers`, {
        method: 'POST',
        headers: { 'cc-api-key': apiKey, 'content-type': 'application/json' },
        body: bytes,
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: unknown }).error).toMatchObject({
        type: 'invalid_request_error',
        code: 'body_not_utf8',
        param: 'body',
      });
    }
    expect(await world.app.prisma.customer.count({ where: { accountId } })).toBe(0);
    expect((await api.post('/customers', '{"name":"Caf\u00e9 \u{1F600}"}')).status).toBe(201);
  });
});

describe('rules the document states', () => {
  it('bounds every integer at 2^53 - 1, gives card and routing numbers their patterns, and says the rest in descriptions', async () => {
    const document = (await (await fetch(`${world.app.baseUrl}/openapi.json`)).json()) as any;
    const integers: any[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        if ((node as any).type === 'integer') integers.push(node);
        Object.values(node).forEach(walk);
      }
    };
    walk(document);
    expect(integers.length).toBeGreaterThan(50);
    for (const schema of integers) {
      expect(schema.maximum ?? schema.exclusiveMaximum).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
      expect(schema.minimum ?? schema.exclusiveMinimum).toBeGreaterThanOrEqual(Number.MIN_SAFE_INTEGER);
    }
    const create = document.components.schemas.PaymentMethodCreate;
    const text = JSON.stringify(create);
    expect(text).toContain('^[ -]*(?:[0-9][ -]*){12,19}$');
    expect(text).toContain('Luhn');
    expect(text).toContain('^\\\\d{9}$');
    expect(JSON.stringify(document.components.schemas.PriceCreate)).toContain('Required when type is recurring');
    expect(JSON.stringify(document.components.schemas.SubscriptionCreate ?? document)).toContain('after start_date');

    // What the document bounds, the server refuses with 400 naming the field.
    const customer = (await api.post('/customers', { name: 'Big numbers' })).body;
    const big = await api.post('/invoices', {
      customer: customer.id,
      lines: [{ description: 'x', amount: 1, quantity: 2 ** 53 }],
    });
    expect(errorOf(big)).toMatchObject({ status: 400, param: 'lines.0.quantity' });
    const badCard = await api.post('/payment-methods', {
      type: 'card',
      card: { number: '4242-4242-4242-424x', exp_month: 12, exp_year: 2100, cvc: '123' },
      billing_details: { name: 'A' },
    });
    expect(errorOf(badCard)).toMatchObject({ status: 400, param: 'card.number' });
  });
});
