import {
  apiClient,
  createTestAccount,
  eventsOf,
  expectStatus,
  startTestApp,
  type ApiClient,
  type TestApp,
} from '../support/harness';

/**
 * GET /events and GET /events/{id} through HTTP on the real database: the events the account's
 * writes recorded, newest first, filtered by type (or group), object, customer and time, readable
 * with any role; another account's events are never listed and their ids answer 404.
 */
let app: TestApp;
let api: ApiClient;
let other: ApiClient;
let accountId: string;
let customer: { id: string };
let invoice: { id: string };
let bystander: { id: string };

beforeAll(async () => {
  app = await startTestApp();
  const account = await createTestAccount(app.prisma, { name: 'Evented', role: 'standard' });
  accountId = account.accountId;
  api = apiClient(app.baseUrl, account.apiKey);
  other = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { name: 'Elsewhere' })).apiKey);
  customer = expectStatus(await api.post('/customers', { name: 'Ada', email: 'ada@example.com' }), 201);
  expectStatus(await api.patch(`/customers/${customer.id}`, { name: 'Ada Lovelace' }), 200);
  invoice = expectStatus(
    await api.post('/invoices', { customer: customer.id, lines: [{ description: 'Setup', amount: 5000 }] }),
    201,
  );
  bystander = expectStatus(await api.post('/customers', { name: 'Charles' }), 201);
  expectStatus(await other.post('/customers', { name: 'Not yours' }), 201);
});
afterAll(() => app?.close());

it('lists the account’s events newest first, with the data its webhooks carry (a standard key reads them)', async () => {
  const listed = expectStatus(await api.get('/events?take=100'), 200);
  const stored = await eventsOf(app.prisma, accountId);
  expect(listed.meta).toEqual({ page: 1, take: 100, itemsTotal: stored.length, pagesTotal: 1 });
  expect(listed.data.map((event: any) => event.id)).toEqual(stored.map((event) => event.id).reverse());
  const created = listed.data.find((event: any) => event.type === 'customer.created' && event.data.id === customer.id);
  expect(created).toEqual({
    id: expect.stringMatching(/^evt_/),
    object: 'event',
    type: 'customer.created',
    created: expect.any(Number),
    data: expect.objectContaining({ id: customer.id, name: 'Ada' }),
  });
  expect(expectStatus(await api.get(`/events/${created.id}`), 200)).toEqual(created);

  const paged = expectStatus(await api.get('/events?take=2&page=2'), 200);
  expect(paged.data.map((event: any) => event.id)).toEqual(listed.data.slice(2, 4).map((event: any) => event.id));
});

it('filters by type and type group, by object and by customer (its invoices’ events too), and by time', async () => {
  const types = async (query: string) =>
    (expectStatus(await api.get(`/events?take=100&${query}`), 200).data as any[]).map((event) => event.type);
  expect(await types('type=customer.updated')).toEqual(['customer.updated']);
  expect(await types('type=customer.*')).toEqual(['customer.created', 'customer.updated', 'customer.created']);
  expect(await types(`object=${customer.id}`)).toEqual(['customer.updated', 'customer.created']);
  expect(await types(`object=${invoice.id}`)).toEqual(['invoice.created']);
  expect(await types(`customer=${customer.id}`)).toEqual(['invoice.created', 'customer.updated', 'customer.created']);
  expect(await types(`customer=${bystander.id}&type=customer.*`)).toEqual(['customer.created']);
  expect(await types('created_gt=4102444800')).toEqual([]);
  expect((await types('created_gte=0&created_lte=4102444800')).length).toBe(4);
});

it('never shows another account’s events: not listed, and their ids answer 404', async () => {
  const theirs = expectStatus(await other.get('/events'), 200).data as any[];
  expect(theirs.map((event) => event.type)).toEqual(['customer.created']);
  const mine = expectStatus(await api.get('/events?take=100'), 200).data as any[];
  expect(mine.map((event) => event.id)).not.toContain(theirs[0].id);
  expect(expectStatus(await api.get(`/events/${theirs[0].id}`), 404).error).toMatchObject({ code: 'resource_missing' });
  expect(expectStatus(await api.get(`/events?object=${theirs[0].data.id}`), 200).data).toEqual([]);
  expectStatus(await api.get('/events/evt_unknown'), 404);
});

it('refuses bad filters with 400 naming them', async () => {
  for (const [query, param] of [
    ['type=customer', 'type'],
    ['type=Customer.created', 'type'],
    ['object=', 'object'],
    ['object=a%20b', 'object'],
    ['customer=nope', 'customer'],
    ['created_gt=yesterday', 'created_gt'],
    ['take=101', 'take'],
    ['colour=red', 'colour'],
  ]) {
    const answer = expectStatus(await api.get(`/events?${query}`), 400, query);
    expect({ query, param: answer.error.param }).toEqual({ query, param });
  }
});
