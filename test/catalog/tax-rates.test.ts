import { computeTax } from '../../src/catalog/tax';
import { findTaxRates } from '../../src/catalog/tax-rate.service';
import { TAX_TYPES } from '../../src/catalog/tax-rate.schemas';
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
let otherAccountId: string;

beforeAll(async () => {
  ({ app, api, accountId, other, otherAccountId } = await startTwoAccountApp());
});

afterAll(() => app.close());

const salesTax = { display_name: 'CA Sales Tax', percentage: 7.25, inclusive: false };

async function createTaxRate(client: ApiClient = api, body: object = salesTax) {
  const response = await client.post('/taxRates', body);
  if (response.status !== 201)
    throw new Error(`POST /taxRates answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

async function rateEvents(id: string) {
  return (await eventsOf(app.prisma, accountId)).filter((event) => (event.data as { id: string }).id === id);
}

describe('POST /taxRates', () => {
  it('creates a tax rate with the spec fields and writes tax.created', async () => {
    const response = await api.post('/taxRates', { ...salesTax, description: 'Statewide', active: true });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^txr_[a-zA-Z0-9]+$/),
      object: 'tax_rate',
      active: true,
      country: 'US',
      created: expect.any(Number),
      description: 'Statewide',
      display_name: 'CA Sales Tax',
      inclusive: false,
      percentage: 7.25,
      tax_type: 'Custom',
      updated_ms: expect.any(Number),
    });
    const events = await rateEvents(response.body.id);
    expect(events.map((event) => event.type)).toEqual(['tax.created']);
    expect(events[0]!.data).toEqual(response.body);
  });

  it.each([
    ['0', 0],
    ['100', 100],
    ['4 decimals', 12.3456],
    ['the smallest step', 0.0001],
    ['99.9999', 99.9999],
  ])('accepts percentage %s and answers it unchanged', async (_label, percentage) => {
    expect((await createTaxRate(api, { ...salesTax, percentage })).percentage).toBe(percentage);
  });

  it('defaults display_name for non-Custom types and accepts every documented tax_type', async () => {
    const vat = await createTaxRate(api, { tax_type: 'vat', percentage: 20, inclusive: true, active: false });
    expect(vat).toMatchObject({ tax_type: 'vat', display_name: 'VAT', inclusive: true, active: false, country: 'US' });
    expect(vat).not.toHaveProperty('description');
    for (const taxType of TAX_TYPES) {
      expect(
        (
          await api.post('/taxRates', {
            tax_type: taxType,
            display_name: `T ${taxType}`,
            percentage: 1,
            inclusive: false,
          })
        ).status,
      ).toBe(201);
    }
  });

  it.each([
    [{ display_name: undefined }, 'display_name'], // Custom (the default type) needs one
    [{ tax_type: 'Custom', display_name: undefined }, 'display_name'],
    [{ display_name: '' }, 'display_name'],
    [{ display_name: '  ' }, 'display_name'],
    [{ display_name: 'x'.repeat(101) }, 'display_name'],
    [{ percentage: undefined }, 'percentage'],
    [{ percentage: -0.0001 }, 'percentage'],
    [{ percentage: 100.0001 }, 'percentage'],
    [{ percentage: 12.34567 }, 'percentage'],
    [{ percentage: '7.25' }, 'percentage'],
    [{ inclusive: undefined }, 'inclusive'],
    [{ inclusive: 'yes' }, 'inclusive'],
    [{ active: 'true' }, 'active'],
    [{ country: 'CA' }, 'country'],
    [{ tax_type: 'excise' }, 'tax_type'],
    [{ description: 'x'.repeat(501) }, 'description'],
    [{ jurisdiction: 'CA' }, 'jurisdiction'],
  ])('rejects %j with 400 naming %s, writing nothing', async (patch, param) => {
    const account = await createTestAccount(app.prisma);
    const client = apiClient(app.baseUrl, account.apiKey);
    const body: Record<string, unknown> = { ...salesTax, ...patch };
    for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
    const response = await client.post('/taxRates', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(await app.prisma.taxRate.count({ where: { accountId: account.accountId } })).toBe(0);
    expect(await app.prisma.event.count({ where: { accountId: account.accountId } })).toBe(0);
  });
});

describe('GET /taxRates', () => {
  it('pages newest first in a {data, meta} envelope and filters on active and inclusive', async () => {
    const account = await createTestAccount(app.prisma);
    const client = apiClient(app.baseUrl, account.apiKey);
    const first = await createTaxRate(client, { ...salesTax, inclusive: true });
    const second = await createTaxRate(client, { ...salesTax, active: false });
    const third = await createTaxRate(client);
    await app.prisma.taxRate.update({ where: { id: first.id }, data: { createdAt: new Date(Date.now() - 3000) } });
    await app.prisma.taxRate.update({ where: { id: second.id }, data: { createdAt: new Date(Date.now() - 2000) } });

    const all = await client.get('/taxRates');
    expect(all.status).toBe(200);
    expect(all.body.data.map((rate: { id: string }) => rate.id)).toEqual([third.id, second.id, first.id]);
    expect(all.body.meta).toEqual({ page: 1, take: 10, itemsTotal: 3, pagesTotal: 1 });
    const ids = (response: { body: { data: { id: string }[] } }) => response.body.data.map((rate) => rate.id);
    const secondPage = await client.get('/taxRates?take=2&page=2');
    expect(ids(secondPage)).toEqual([first.id]);
    expect(secondPage.body.meta).toEqual({ page: 2, take: 2, itemsTotal: 3, pagesTotal: 2 });
    expect(ids(await client.get('/taxRates?active=false'))).toEqual([second.id]);
    expect(ids(await client.get('/taxRates?inclusive=true'))).toEqual([first.id]);
    expect((await client.get('/taxRates?take=100')).status).toBe(200);
  });

  it.each([
    ['take=101', 'take'],
    ['take=0', 'take'],
    ['page=0', 'page'],
    ['active=yes', 'active'],
    ['country=US', 'country'],
  ])('rejects ?%s with 400 naming %s', async (query, param) => {
    const response = await api.get(`/taxRates?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });
});

describe('GET, PATCH /taxRates/{id}', () => {
  it('gets a tax rate; unknown and malformed ids are 404', async () => {
    const rate = await createTaxRate();
    expect((await api.get(`/taxRates/${rate.id}`)).body).toEqual(rate);
    expect((await api.get('/taxRates/txr_nope')).status).toBe(404);
    const malformed = await api.get('/taxRates/txr-nope');
    expect(malformed.status).toBe(404);
    expect(malformed.body.error.param).toBe('id');
  });

  it('changes only the given fields and writes tax.updated', async () => {
    const rate = await createTaxRate(api, { ...salesTax, description: 'Old' });
    const renamed = await api.patch(`/taxRates/${rate.id}`, { display_name: 'CA State Tax' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...rate, display_name: 'CA State Tax', updated_ms: expect.any(Number) });
    const retyped = await api.patch(`/taxRates/${rate.id}`, {
      tax_type: 'sales_tax',
      description: null,
      active: false,
    });
    const { description: _cleared, ...withoutDescription } = rate;
    expect(retyped.body).toEqual({
      ...withoutDescription,
      display_name: 'CA State Tax',
      tax_type: 'sales_tax',
      active: false,
      updated_ms: expect.any(Number),
    });
    expect(retyped.body.updated_ms).toBeGreaterThan(renamed.body.updated_ms);
    const updates = (await rateEvents(rate.id)).filter((event) => event.type === 'tax.updated');
    expect(updates.map((event) => event.data)).toEqual([renamed.body, retyped.body]);
  });

  it('changes nothing for an empty body (no event)', async () => {
    const rate = await createTaxRate();
    expect((await api.patch(`/taxRates/${rate.id}`, {})).body).toEqual(rate);
    expect((await rateEvents(rate.id)).map((event) => event.type)).toEqual(['tax.created']);
  });

  it.each([
    [{ percentage: 5 }, 'percentage'],
    [{ inclusive: true }, 'inclusive'],
    [{ country: 'US' }, 'country'],
    [{ tax_type: 'excise' }, 'tax_type'],
    [{ display_name: '' }, 'display_name'],
    [{ display_name: null }, 'display_name'],
    [{ description: 'x'.repeat(501) }, 'description'],
  ])('rejects PATCH %j with 400 naming %s and changes nothing', async (body, param) => {
    const rate = await createTaxRate();
    const response = await api.patch(`/taxRates/${rate.id}`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
    expect((await api.get(`/taxRates/${rate.id}`)).body).toEqual(rate);
  });
});

describe('findTaxRates (for invoicing)', () => {
  it('answers the rates in the order asked, ready for computeTax', async () => {
    const state = await createTaxRate(api, { ...salesTax, percentage: 6.25 });
    const vat = await createTaxRate(api, { tax_type: 'vat', percentage: 10, inclusive: true });
    const rates = await findTaxRates(app.prisma, accountId, [vat.id, state.id]);
    expect(rates).toEqual([vat, state]);
    expect(await findTaxRates(app.prisma, accountId, [])).toEqual([]);
    // 11000 incl. 10% -> 10000 + 1000; exclusive 6.25% of 10000 = 625
    expect(computeTax(11000, rates)).toMatchObject({
      amount_excluding_tax: 10000,
      inclusive_tax: 1000,
      exclusive_tax: 625,
      total: 11625,
    });
  });

  it('is a 404 naming the first unknown id, including rates of another account', async () => {
    const mine = await createTaxRate();
    const foreign = await createTaxRate(other);
    await expect(findTaxRates(app.prisma, accountId, [mine.id, 'txr_unknown', foreign.id])).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('txr_unknown'),
    });
    await expect(findTaxRates(app.prisma, accountId, [mine.id, foreign.id])).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining(foreign.id),
    });
    await expect(findTaxRates(app.prisma, otherAccountId, [foreign.id])).resolves.toEqual([foreign]);
  });
});

describe('account isolation', () => {
  it("answers 404 for another account's tax rate on every endpoint and changes nothing", async () => {
    const rate = await createTaxRate();
    expect((await other.get(`/taxRates/${rate.id}`)).status).toBe(404);
    expect((await other.patch(`/taxRates/${rate.id}`, { display_name: 'Stolen' })).status).toBe(404);
    expect((await other.get('/taxRates?take=100')).body.data.map((r: { id: string }) => r.id)).not.toContain(rate.id);
    expect((await api.get(`/taxRates/${rate.id}`)).body).toEqual(rate);
  });
});

describe('OpenAPI', () => {
  it('documents every tax rate endpoint', async () => {
    const document = (await apiClient(app.baseUrl).get('/openapi.json')).body;
    expect(Object.keys(document.paths['/taxRates']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/taxRates/{id}']).sort()).toEqual(['get', 'patch']);
  });
});
