import { Client } from 'pg';
import { foldCounters } from '../../src/db/counter-folding';
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
  // The last second of the year 9999, the largest bound accepted, on each side.
  expect(await types('created_gt=253402300799')).toEqual([]);
  expect((await types('created_lte=253402300799')).length).toBe(4);
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

it('answers an exact itemsTotal from event_counts for every filter, whatever wrote, moved or deleted the rows', async () => {
  // Events written by SQL over five UTC days, on two connections (two counter slots), as a migration,
  // the seeder or the retention sweeper would (docs/decisions.md §34).
  const writers = [new Client(process.env.DATABASE_URL), new Client(process.env.DATABASE_URL)] as const;
  await Promise.all(writers.map((client) => client.connect()));
  try {
    const types = ['invoice.created', 'invoice.paid', 'customer.updated', 'subscription.created'];
    for (let n = 0; n < 40; n++) {
      const created = new Date(Date.UTC(2025, 0, 1 + (n % 5), (n * 7) % 24, n % 60));
      await writers[n % 2]!.query(
        `INSERT INTO events (id, account_id, type, data, created_at, object_id, customer_id)
         VALUES ($1, $2, $3, '{}', $4, $5, $6)`,
        [`evt_count_${n}`, accountId, types[n % 4], created, `obj_${n % 3}`, n % 2 ? customer.id : null],
      );
    }
    // Moved to another day and to another type, then some deleted by the other connection.
    await writers[1].query(
      `UPDATE events SET created_at = created_at + interval '2 days', type = 'invoice.voided' WHERE id IN ('evt_count_3', 'evt_count_8')`,
    );
    await writers[1].query(`UPDATE events SET dispatched_at = now() WHERE account_id = $1`, [accountId]);
    await writers[0].query(`DELETE FROM events WHERE id IN ('evt_count_5', 'evt_count_10', 'evt_count_11')`);

    const stored = await eventsOf(app.prisma, accountId);
    const seconds = (iso: string) => Date.parse(iso) / 1000;
    const cases: [string, (event: (typeof stored)[number]) => boolean][] = [
      ['', () => true],
      ['type=invoice.paid', (event) => event.type === 'invoice.paid'],
      ['type=invoice.*', (event) => event.type.startsWith('invoice.')],
      ['type=customer.updated', (event) => event.type === 'customer.updated'],
      [`object=obj_1`, (event) => event.objectId === 'obj_1'],
      [
        `customer=${customer.id}&type=invoice.*`,
        (event) => event.customerId === customer.id && event.type.startsWith('invoice.'),
      ],
    ];
    const ranges: [string, (time: number) => boolean][] = [
      ['', () => true],
      [`created_gte=${seconds('2025-01-02T00:00:00Z')}`, (time) => time >= seconds('2025-01-02T00:00:00Z')],
      [
        `created_gt=${seconds('2025-01-01T13:00:00Z')}&created_lte=${seconds('2025-01-04T09:00:00Z')}`,
        (time) => time > seconds('2025-01-01T13:00:00Z') && time <= seconds('2025-01-04T09:00:00Z'),
      ],
      [
        `created_gte=${seconds('2025-01-03T05:00:00Z')}&created_lt=${seconds('2025-01-03T20:00:00Z')}`,
        (time) => time >= seconds('2025-01-03T05:00:00Z') && time < seconds('2025-01-03T20:00:00Z'),
      ],
    ];
    // Exact from the appended rows, and again once they are folded (as the worker does every second).
    for (const fold of [false, true]) {
      if (fold) await foldCounters(app.prisma, 1_000_000);
      for (const [filter, keep] of cases) {
        for (const [range, within] of ranges) {
          const query = [filter, range].filter(Boolean).join('&');
          const expected = stored.filter((event) => keep(event) && within(event.createdAt.getTime() / 1000)).length;
          const listed = expectStatus(await api.get(`/events?take=1&${query}`), 200);
          expect({ fold, query, itemsTotal: listed.meta.itemsTotal }).toEqual({ fold, query, itemsTotal: expected });
        }
      }
    }
  } finally {
    await Promise.all(writers.map((client) => client.end()));
  }
});
