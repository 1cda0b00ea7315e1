import net from 'node:net';
import { createProduct } from '../support/catalog';
import {
  apiClient,
  createTestAccount,
  startTwoAccountApp,
  type ApiClient,
  type ApiResponse,
  type TwoAccountApp,
} from '../support/harness';

// Input and protocol hardening: each of these was a 500 or a wrong status.

let world: TwoAccountApp;
let api: ApiClient;

beforeAll(async () => {
  world = await startTwoAccountApp();
  api = world.api;
});
afterAll(() => world.app.close());

const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found',
  'conflict',
  'api_error',
];

/** Status, error type, code and param of an error answer, after checking it has the JSON error shape. */
function errorOf(response: ApiResponse) {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(ERROR_TYPES).toContain(response.body?.error?.type);
  expect(typeof response.body.error.message).toBe('string');
  return { status: response.status, code: response.body.error.code, param: response.body.error.param };
}

/** Sends raw bytes and reads the whole answer (the server closes the connection after it). */
function rawRequest(text: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(world.app.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(text));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
  });
}

async function customerNames(client: ApiClient, path: string): Promise<string[]> {
  const response = await client.get(path);
  expect(response.status).toBe(200);
  const list = (Array.isArray(response.body) ? response.body : response.body.data) as { name: string }[];
  return list.map((customer) => customer.name).sort();
}

describe('item 13: NUL and lone surrogates', () => {
  it('are refused with 400 naming the field in bodies, nested bodies, body keys, queries, JSON search filters and paths; nothing is written', async () => {
    const before = await world.app.prisma.customer.count({ where: { accountId: world.accountId } });
    expect(errorOf(await api.post('/customers', '{"name":"a\\u0000b"}'))).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'name',
    });
    expect(errorOf(await api.post('/customers', '{"name":"a\\ud800b"}'))).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'name',
    });
    expect(errorOf(await api.post('/customers', '{"name":"ok","address":[{"city":"\\udc00"}]}'))).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'address.0.city',
    });
    expect(errorOf(await api.post('/customers', '{"name":"ok","na\\u0000me":"x"}'))).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'na\u0000me',
    });
    expect(await world.app.prisma.customer.count({ where: { accountId: world.accountId } })).toBe(before);

    const customer = (await api.post('/customers', { name: 'Surrogates' })).body;
    expect(errorOf(await api.patch(`/customers/${customer.id}`, '{"billingAddress":{"city":"x\\ud83d"}}'))).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'billingAddress.city',
    });
    expect(errorOf(await api.get('/customers?search=%00'))).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'search',
    });
    expect(errorOf(await api.get('/customers/search?search=a%00'))).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'search',
    });
    expect(errorOf(await api.get('/products/taxCodes?search=%00'))).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'search',
    });
    expect(errorOf(await api.get(`/products?search=${encodeURIComponent('{"tax_code":"txcd_\\u0000"}')}`))).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'search.tax_code',
    });
    expect(errorOf(await api.get('/products/prod_a%00b'))).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'id',
    });
    // An id that cannot exist names no customer: 404 like an unknown one (docs/api.md "Conventions").
    expect(errorOf(await api.get('/customers/cus_a%00b'))).toEqual({
      status: 404,
      code: 'resource_missing',
      param: 'externalKey',
    });
    // A well-formed pair (an emoji) is text like any other.
    expect((await api.post('/customers', { name: 'Smile \u{1F600}' })).status).toBe(201);
  });
});

describe('item 14: date filters', () => {
  it('past the year 9999 or negative are 400 naming the filter, in the query and inside JSON search filters; the last second of 9999 is fine', async () => {
    for (const name of ['created_gt', 'created_gte', 'created_lt', 'created_lte']) {
      expect(errorOf(await api.get(`/invoices?${name}=253402300800`))).toEqual({
        status: 400,
        code: 'parameter_invalid',
        param: name,
      });
      expect(errorOf(await api.get(`/invoices?${name}=-1`))).toEqual({
        status: 400,
        code: 'parameter_invalid',
        param: name,
      });
    }
    expect((await api.get('/invoices?created_lte=253402300799&created_gte=0')).status).toBe(200);
    for (const path of ['/products', '/prices']) {
      for (const operator of ['gt', 'gte', 'lt', 'lte']) {
        const search = encodeURIComponent(JSON.stringify({ created: { [operator]: 253402300800 } }));
        expect(errorOf(await api.get(`${path}?search=${search}`))).toEqual({
          status: 400,
          code: 'parameter_invalid',
          param: `search.created.${operator}`,
        });
      }
      const negative = encodeURIComponent(JSON.stringify({ created: { gt: -1 } }));
      expect(errorOf(await api.get(`${path}?search=${negative}`))).toEqual({
        status: 400,
        code: 'parameter_invalid',
        param: 'search.created.gt',
      });
      const widest = encodeURIComponent(JSON.stringify({ created: { gte: 0, lte: 253402300799 } }));
      expect((await api.get(`${path}?search=${widest}`)).status).toBe(200);
    }
  });
});

describe('item 15: large requests and error shapes', () => {
  it('a search of 2000 characters that percent-encodes to 18 KB is answered (it was 431)', async () => {
    const product = await createProduct(api, { name: `Wide ${'界'.repeat(50)}` });
    const response = await api.get(`/products?search=${encodeURIComponent('界'.repeat(2000))}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    const found = await api.get(`/products?search=${encodeURIComponent('界'.repeat(50))}`);
    expect(found.body.data.map((item: { id: string }) => item.id)).toEqual([product.id]);
  });

  it('headers over 64 KB get 431 and a malformed request 400, both with the JSON error body', async () => {
    const tooLarge = await api.get('/customers', { 'x-filler': 'a'.repeat(70 * 1024) });
    expect(errorOf(tooLarge)).toEqual({ status: 431, code: 'headers_too_large', param: undefined });
    expect(tooLarge.headers.get('x-frame-options')).toBe('SAMEORIGIN');

    const malformed = await rawRequest('GET /customers HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n');
    expect(malformed.status).toBe(400);
    expect(malformed.headers).toMatch(/content-type: application\/json/i);
    // The security headers every other answer has (helmet's, src/http/security-headers.ts).
    expect(malformed.headers).toMatch(/x-content-type-options: nosniff/i);
    expect(malformed.headers).toMatch(/content-security-policy: default-src 'self'/i);
    expect(malformed.headers).toMatch(/strict-transport-security: max-age=/i);
    expect(JSON.parse(malformed.body).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'malformed_request',
    });
  });

  it('a body over 1 MB gets 413 with the JSON error body', async () => {
    const response = await api.post('/customers', { name: 'x', description: 'd'.repeat(1024 * 1024) });
    expect(errorOf(response)).toEqual({ status: 413, code: 'body_too_large', param: 'body' });
  });

  it('the OpenAPI document lists on every operation the errors any operation may answer, and 405 once for all', async () => {
    const document = (await api.get('/openapi.json')).body;
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      // Operational pages without a key, which never read a body nor answer 503.
      if (['/health', '/openapi.json', '/docs', '/metrics'].includes(path)) continue;
      for (const [method, operation] of Object.entries(operations)) {
        const expected = ['400', '401', '431', '500', '503', ...(operation.requestBody ? ['413', '415'] : [])];
        for (const status of expected) if (!operation.responses[status]) missing.push(`${method} ${path} ${status}`);
        expect(operation.responses['503'].headers['Retry-After']).toBeDefined();
      }
    }
    expect(missing).toEqual([]);
    expect(document.components.responses.MethodNotAllowed.headers.Allow).toBeDefined();
    expect(document.components.responses.MethodNotAllowed.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
  });
});

describe('item 16: methods and content types', () => {
  it('a known path with a method it does not serve is 405 with Allow; an unknown path is 404', async () => {
    const customers = await api.request('PUT', '/customers', {});
    expect(errorOf(customers)).toEqual({ status: 405, code: 'method_not_allowed', param: undefined });
    expect(customers.headers.get('allow')).toBe('GET, HEAD, POST');
    const customer = await api.request('POST', '/customers/cus_abc', {});
    expect(errorOf(customer).status).toBe(405);
    expect(customer.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
    const health = await apiClient(world.app.baseUrl).request('DELETE', '/health');
    expect(errorOf(health).status).toBe(405);
    expect(health.headers.get('allow')).toBe('GET, HEAD');
    expect(errorOf(await api.request('PUT', '/nothing/here', {}))).toEqual({
      status: 404,
      code: 'route_not_found',
      param: undefined,
    });
  });

  it('a path is matched in any case and with a trailing slash, a fixed path before an id, as Express matches it', async () => {
    const created = await api.post('/customers', { name: 'Any Case' });
    expect(created.status).toBe(201);
    for (const path of [`/CUSTOMERS/${created.body.id}`, `/Customers/${created.body.id}/`]) {
      const read = await api.get(path);
      expect(read.status).toBe(200);
      expect(read.body.id).toBe(created.body.id);
    }
    const upper = await api.request('PUT', '/CUSTOMERS', {});
    expect(errorOf(upper).status).toBe(405);
    expect(upper.headers.get('allow')).toBe('GET, HEAD, POST');
    // `/customers/search` is the search, never a customer named "search", in any case.
    const search = await api.get('/Customers/Search?search=Any');
    expect(search.status).toBe(200);
    expect(search.body.map((customer: { id: string }) => customer.id)).toContain(created.body.id);
    expect(errorOf(await api.get('/customersx/abc')).status).toBe(404);
  });

  it('a HEAD request is answered by the GET route without a body; an id is percent-decoded, one that cannot be is 400', async () => {
    const created = await api.post('/customers', { name: 'Head' });
    expect(created.status).toBe(201);
    const get = await api.get(`/customers/${created.body.id}`);
    const head = await api.request('HEAD', `/customers/${created.body.id}`);
    expect(head.status).toBe(200);
    expect(head.body).toBeUndefined();
    expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    const encoded = await api.get(`/customers/${created.body.id.replace('_', '%5F')}`);
    expect(encoded.status).toBe(200);
    expect(encoded.body.id).toBe(created.body.id);
    expect(errorOf(await api.get('/customers/%E0%A4%A'))).toEqual({
      status: 400,
      code: 'bad_request',
      param: undefined,
    });
    expect(errorOf(await api.request('PATCH', '/customers/%E0%A4%A', {}))).toMatchObject({ status: 400 });
  });

  it('a body that is not application/json is 415 and writes nothing; no body and no content type is fine', async () => {
    const before = await world.app.prisma.customer.count({ where: { accountId: world.accountId } });
    const plain = await api.post('/customers', '{"name":"Plain"}', { 'content-type': 'text/plain' });
    expect(errorOf(plain)).toEqual({ status: 415, code: 'unsupported_media_type', param: 'Content-Type' });
    const form = await api.post('/customers', 'name=Form', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(errorOf(form).status).toBe(415);
    expect(await world.app.prisma.customer.count({ where: { accountId: world.accountId } })).toBe(before);

    expect(
      (await api.post('/customers', '{"name":"Charset"}', { 'content-type': 'application/json; charset=utf-8' }))
        .status,
    ).toBe(201);
    // No body at all: the schema speaks, naming the field.
    const { apiKey } = await createTestAccount(world.app.prisma, { name: 'Bodyless' });
    const empty = await fetch(`${world.app.baseUrl}/customers`, { method: 'POST', headers: { 'cc-api-key': apiKey } });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as any).error).toMatchObject({ code: 'parameter_missing', param: 'name' });
  });
});

describe('item 17: search matches % _ and \\ literally', () => {
  it('in customers, products and prices, and only within the account', async () => {
    const names = ['100% cotton', 'a_b', 'back\\slash', 'plain'];
    for (const name of names) expect((await api.post('/customers', { name: `Lit ${name}` })).status).toBe(201);
    await world.other.post('/customers', { name: 'Lit 50% other' });

    expect(await customerNames(api, '/customers?search=%25')).toEqual(['Lit 100% cotton']);
    expect(await customerNames(api, '/customers?search=_')).toEqual(['Lit a_b']);
    expect(await customerNames(api, '/customers?search=%5C')).toEqual(['Lit back\\slash']);
    expect(await customerNames(api, '/customers/search?search=%25')).toEqual(['Lit 100% cotton']);
    expect(await customerNames(api, '/customers/search?search=lit%20')).toHaveLength(4);

    const percent = await createProduct(api, { name: `Percent ${Date.now()} 5%` });
    await createProduct(api, { name: `Underscore ${Date.now()} x_y` });
    const productIds = async (search: string) =>
      ((await api.get(`/products?search=${search}&take=50`)).body.data as { id: string }[]).map((p) => p.id);
    expect(await productIds('%25')).toEqual([percent.id]);
    expect((await productIds('_')).length).toBe(1);

    const price = await api.post(`/prices/${percent.id}`, {
      currency: 'USD',
      unit_amount: 100,
      type: 'one_time',
      description: 'half_off 50%',
    });
    expect(price.status).toBe(201);
    const prices = async (search: string) =>
      ((await api.get(`/prices?search=${search}`)).body.data as { id: string }[]).map((p) => p.id);
    expect(await prices('f_o')).toEqual([price.body.id]);
    expect(await prices('0%25')).toEqual([price.body.id]);
    expect(await prices('%25%25')).toEqual([]);
  });
});

describe('item 18: account settings and webhook URLs', () => {
  it('dunning settings are for developer and superadmin keys: 403 for a standard key, which changes nothing', async () => {
    const standard = await createTestAccount(world.app.prisma, { role: 'standard', name: 'Standard' });
    const client = apiClient(world.app.baseUrl, standard.apiKey);
    expect(errorOf(await client.put('/settings/dunning', { retry_days: [2], outcome: 'pause' }))).toEqual({
      status: 403,
      code: 'insufficient_role',
      param: undefined,
    });
    expect(errorOf(await client.get('/settings/dunning')).status).toBe(403);
    expect(await world.app.prisma.subscriptionDunningSettings.count({ where: { accountId: standard.accountId } })).toBe(
      0,
    );

    const superadmin = apiClient(
      world.app.baseUrl,
      (await createTestAccount(world.app.prisma, { role: 'superadmin' })).apiKey,
    );
    expect((await superadmin.put('/settings/dunning', { retry_days: [2], outcome: 'pause' })).status).toBe(200);
    expect((await api.get('/settings/dunning')).status).toBe(200);
  });

  it('webhook destination URLs with a user name or password are refused, naming url', async () => {
    for (const url of [
      'http://user:pw@example.com/hook',
      'https://user@example.com/hook',
      'https://:secret@example.com/',
    ]) {
      expect(errorOf(await api.post('/webhook/destination', { url }))).toEqual({
        status: 400,
        code: 'parameter_invalid',
        param: 'url',
      });
    }
    const destination = await api.post('/webhook/destination', { url: 'https://example.com/hook' });
    expect(destination.status).toBe(201);
    expect(
      errorOf(await api.put(`/webhook/destination/${destination.body.id}`, { url: 'https://u:p@example.com/hook' })),
    ).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'url',
    });
    expect((await api.get('/webhook/destination')).body.map((d: { url: string }) => d.url)).toEqual([
      'https://example.com/hook',
    ]);
  });
});
