import { Client } from 'pg';
import { openSeedSession, seedChunk, seedSupportingRows } from '../../src/scale/seed.records';
import { startTwoAccountApp, type ApiClient, type TwoAccountApp } from '../support/harness';

// Lists at scale through HTTP (docs/decisions.md §23, §36): cursors walk the same list as page/take, exact
// itemsTotal from the counters equals a count of the rows (created ranges with partial days included),
// a deep page found through the day counters is the page at that offset, and a cursor of another
// account is an unknown id. Rows are seeded with `npm run seed:scale`'s statements.

let setup: TwoAccountApp;
let api: ApiClient;
let db: Client;
const SIZES = { customers: 400, invoices: 3000, events: 700, deliveries: 700, usageEvents: 0 };

beforeAll(async () => {
  setup = await startTwoAccountApp();
  api = setup.api;
  db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  await openSeedSession(db, {
    accountId: setup.accountId,
    accountName: 'Test account',
    seed: 'paging',
    until: new Date(),
    spanSeconds: 60 * 86_400,
    sizes: SIZES,
  });
  await seedSupportingRows(db, SIZES);
  await seedChunk(db, 'customers', 1, SIZES.customers);
  await seedChunk(db, 'invoices', 1, SIZES.invoices);
  await seedChunk(db, 'events', 1, SIZES.events);
  await seedChunk(db, 'deliveries', 1, SIZES.deliveries);
}, 120_000);
afterAll(async () => {
  await db.end();
  await setup.app.close();
});

async function ok(path: string) {
  const response = await api.get(path);
  expect({ path, status: response.status }).toEqual({ path, status: 200 });
  return response.body;
}

const ids = (items: { id: string }[]) => items.map((item) => item.id);

describe('GET /customers', () => {
  it.each([
    ['created', 'DESC'],
    ['created', 'ASC'],
    ['name', 'ASC'],
    ['name', 'DESC'],
    ['email', 'ASC'],
    ['email', 'DESC'],
  ])(
    'sorted by %s %s, starting_after walks the pages page/take gives, and ending_before walks them back',
    async (sort, order) => {
      const base = `/customers?sortingField=${sort}&order=${order}&take=100`;
      const byPages: string[] = [];
      for (let page = 1; page <= 4; page++) byPages.push(...ids(await ok(`${base}&page=${page}`)));
      const live = await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM customers WHERE account_id = $1 AND deleted_at IS NULL',
        [setup.accountId],
      );
      expect(new Set(byPages).size).toBe(Number(live.rows[0]!.n));

      const byCursor: string[] = [];
      let last: string | undefined;
      for (;;) {
        const page = ids(await ok(`${base.replace('take=100', 'take=37')}${last ? `&starting_after=${last}` : ''}`));
        if (page.length === 0) break;
        byCursor.push(...page);
        last = page[page.length - 1];
      }
      expect(byCursor).toEqual(byPages);

      const backwards: string[] = [];
      let first = byPages[byPages.length - 1]!;
      backwards.unshift(first);
      for (;;) {
        const page = ids(await ok(`${base.replace('take=100', 'take=41')}&ending_before=${first}`));
        if (page.length === 0) break;
        backwards.unshift(...page);
        first = page[0]!;
      }
      expect(backwards).toEqual(byPages);
    },
  );

  it('a cursor of another account or a deleted customer is 404 naming it; both cursors at once are 400', async () => {
    const theirs = (await setup.other.post('/customers', { name: 'Theirs' })).body.id as string;
    const mine = await api.get(`/customers?starting_after=${theirs}`);
    expect(mine.status).toBe(404);
    expect(mine.body.error).toMatchObject({ param: 'starting_after' });
    const before = await api.get(`/customers?ending_before=${theirs}`);
    expect(before.status).toBe(404);
    const [a, b] = ids(await ok('/customers?take=2'));
    const both = await api.get(`/customers?starting_after=${a}&ending_before=${b}`);
    expect(both.status).toBe(400);
    expect(both.body.error).toMatchObject({ param: 'ending_before' });
  });

  it('search finds by part of a name, an exact email in any case, and an id', async () => {
    const { rows } = await db.query<{ id: string; name: string; email: string }>(
      `SELECT id, name, email FROM customers WHERE account_id = $1 AND deleted_at IS NULL AND email IS NOT NULL ORDER BY id LIMIT 1`,
      [setup.accountId],
    );
    const customer = rows[0]!;
    const byEmail = await ok(`/customers/search?search=${encodeURIComponent(customer.email.toUpperCase())}`);
    expect(ids(byEmail)).toEqual([customer.id]);
    expect(ids(await ok(`/customers/search?search=${customer.id}`))).toEqual([customer.id]);
    const part = customer.name.split(' ')[1]!.slice(0, 4);
    const found = await ok(`/customers/search?search=${encodeURIComponent(part)}`);
    const expected = await db.query<{ id: string }>(
      `SELECT id FROM customers WHERE account_id = $1 AND deleted_at IS NULL AND (name ILIKE $2 OR email ILIKE $2)
       ORDER BY name, id LIMIT 100`,
      [setup.accountId, `%${part}%`],
    );
    expect(ids(found)).toEqual(expected.rows.map((row) => row.id));
    const theirs = (await setup.other.post('/customers', { name: 'Hidden Person' })).body.id as string;
    expect(await ok(`/customers/search?search=${theirs}`)).toEqual([]);
  });
});

describe('GET /invoices', () => {
  async function countOf(where: string, values: unknown[]): Promise<number> {
    const { rows } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM invoices WHERE account_id = $1 ${where}`,
      [setup.accountId, ...values],
    );
    return Number(rows[0]!.n);
  }

  it('itemsTotal is exact for each filter and for created ranges that cut days', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, string, unknown[]][] = [
      ['', '', []],
      ['status=paid', "AND status = 'paid'", []],
      ['status=draft', "AND status = 'draft'", []],
      [`created_gte=${now - 20 * 86_400 - 3_333}`, 'AND created_at >= to_timestamp($2)', [now - 20 * 86_400 - 3_333]],
      [
        `created_gt=${now - 40 * 86_400 + 77}&created_lte=${now - 10 * 86_400 - 999}&status=paid`,
        "AND created_at > to_timestamp($2) AND created_at < to_timestamp($3) + interval '1 ms' AND status = 'paid'",
        [now - 40 * 86_400 + 77, now - 10 * 86_400 - 999],
      ],
      [`created_lt=${now - 30 * 86_400 + 5}`, 'AND created_at < to_timestamp($2)', [now - 30 * 86_400 + 5]],
      [
        `created_gte=${now - 5 * 86_400 - 100}&created_lt=${now - 5 * 86_400 + 7_000}`,
        'AND created_at >= to_timestamp($2) AND created_at < to_timestamp($3)',
        [now - 5 * 86_400 - 100, now - 5 * 86_400 + 7_000],
      ],
    ];
    for (const [query, where, values] of cases) {
      const body = await ok(`/invoices?take=5&${query}`);
      expect({ query, total: body.meta.itemsTotal }).toEqual({ query, total: await countOf(where, values) });
    }
    const { rows } = await db.query<{ customer_id: string }>(
      'SELECT customer_id FROM invoices WHERE account_id = $1 GROUP BY 1 ORDER BY count(*) DESC LIMIT 1',
      [setup.accountId],
    );
    const customer = rows[0]!.customer_id;
    const body = await ok(`/invoices?customer=${customer}`);
    expect(body.meta.itemsTotal).toBe(await countOf('AND customer_id = $2', [customer]));
  });

  it('a deep page found through the day counters is the page at that offset, and a cursor page says where it is', async () => {
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM invoices WHERE account_id = $1 AND status = 'paid' ORDER BY created_at DESC, id DESC OFFSET 2450 LIMIT 50`,
      [setup.accountId],
    );
    const deep = await ok('/invoices?status=paid&page=50&take=50');
    expect(ids(deep.data)).toEqual(rows.map((row) => row.id));
    const all = await db.query<{ id: string }>(
      'SELECT id FROM invoices WHERE account_id = $1 ORDER BY created_at DESC, id DESC OFFSET 2800 LIMIT 100',
      [setup.accountId],
    );
    expect(ids((await ok('/invoices?page=29&take=100')).data)).toEqual(all.rows.map((row) => row.id));

    const page3 = await ok('/invoices?page=3&take=20');
    const after = await ok(`/invoices?take=20&starting_after=${page3.data[19].id}`);
    expect(ids(after.data)).toEqual(ids((await ok('/invoices?page=4&take=20')).data));
    expect(after.meta).toMatchObject({ page: 4, take: 20, itemsTotal: SIZES.invoices, has_more: true });
    const before = await ok(`/invoices?take=20&ending_before=${page3.data[0].id}`);
    expect(ids(before.data)).toEqual(ids((await ok('/invoices?page=2&take=20')).data));
    expect(before.meta).toMatchObject({ page: 2, has_more: true });
    const newest = await ok(`/invoices?take=20&ending_before=${before.data[0].id}`);
    expect(newest.meta).toMatchObject({ page: 1, has_more: false });

    const theirs = await setup.other.get('/invoices?take=1');
    expect(theirs.body.meta.itemsTotal).toBe(0);
    const unknown = await api.get(`/invoices?starting_after=00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ param: 'starting_after' });
  });
});

describe('GET /webhook/logs, GET /transactions and GET /events (docs/decisions.md §36)', () => {
  const lists: [string, string, string][] = [
    ['/webhook/logs', 'webhook_deliveries', ''],
    ['/webhook/logs?status=success', 'webhook_deliveries', "AND status = 'success'"],
    ['/transactions', 'transactions', ''],
    ['/transactions?status=succeeded&type=payment', 'transactions', "AND status = 'succeeded' AND type = 'payment'"],
    ['/events', 'events', ''],
    ['/events?type=invoice.*', 'events', "AND type LIKE 'invoice.%'"],
  ];

  it.each(lists)(
    '%s: starting_after walks the pages page/take gives, ending_before walks them back, itemsTotal exact, no page',
    async (path, table, where) => {
      const base = `${path}${path.includes('?') ? '&' : '?'}`;
      const { rows } = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${table} WHERE account_id = $1 ${where}`,
        [setup.accountId],
      );
      const total = Number(rows[0]!.n);
      expect(total).toBeGreaterThan(100);
      const byPages: string[] = [];
      for (let page = 1; byPages.length < total; page++) {
        const body = await ok(`${base}take=100&page=${page}`);
        expect(body.meta).toMatchObject({ page, take: 100, itemsTotal: total });
        if (body.data.length === 0) break;
        byPages.push(...ids(body.data));
      }
      expect(new Set(byPages).size).toBe(total);

      const byCursor: string[] = [];
      let last: string | undefined;
      for (;;) {
        const body = await ok(`${base}take=53${last ? `&starting_after=${last}` : ''}`);
        if (last) {
          expect(body.meta).toEqual({
            take: 53,
            itemsTotal: total,
            pagesTotal: Math.ceil(total / 53),
            has_more: byCursor.length + body.data.length < total,
          });
        }
        if (body.data.length === 0) break;
        byCursor.push(...ids(body.data));
        last = byCursor[byCursor.length - 1];
      }
      expect(byCursor).toEqual(byPages);

      const backwards: string[] = [byPages[byPages.length - 1]!];
      for (;;) {
        const body = await ok(`${base}take=61&ending_before=${backwards[0]}`);
        if (body.data.length === 0) break;
        backwards.unshift(...ids(body.data));
      }
      expect(backwards).toEqual(byPages);
    },
  );

  it.each([
    ['/webhook/logs', 'webhook_deliveries'],
    ['/transactions', 'transactions'],
    ['/events', 'events'],
  ])(
    '%s: a cursor of another account or an unknown id is 404 naming it; both cursors at once are 400',
    async (path, table) => {
      const { rows } = await db.query<{ id: string }>(`SELECT id FROM ${table} WHERE account_id = $1 LIMIT 2`, [
        setup.accountId,
      ]);
      const [a, b] = rows.map((row) => row.id);
      for (const param of ['starting_after', 'ending_before']) {
        const theirs = await setup.other.get(`${path}?${param}=${a}`);
        expect({ param, status: theirs.status, error: theirs.body.error?.param }).toEqual({
          param,
          status: 404,
          error: param,
        });
      }
      const unknown = await api.get(`${path}?starting_after=zz_unknown`);
      expect(unknown.status).toBe(404);
      const both = await api.get(`${path}?starting_after=${a}&ending_before=${b}`);
      expect(both.status).toBe(400);
      expect(both.body.error).toMatchObject({ param: 'ending_before' });
    },
  );
});

describe('a deep page of customers in creation order (docs/decisions.md §36)', () => {
  it('found through the day counters, is the page at that offset, both orders, soft deletions counted', async () => {
    await seedChunk(db, 'customers', SIZES.customers + 1, 3_000);
    // A few more deleted now, through an UPDATE as DELETE /customers does it: the counters follow.
    await db.query(
      `UPDATE customers SET deleted_at = now() WHERE account_id = $1 AND deleted_at IS NULL AND id IN (
         SELECT id FROM customers WHERE account_id = $1 ORDER BY created_at LIMIT 300 OFFSET 1000)`,
      [setup.accountId],
    );
    for (const order of ['DESC', 'ASC']) {
      for (const page of [41, 47, 58, 2000]) {
        const { rows } = await db.query<{ id: string }>(
          `SELECT id FROM customers WHERE account_id = $1 AND deleted_at IS NULL
           ORDER BY created_at ${order}, id ${order} OFFSET $2 LIMIT 50`,
          [setup.accountId, (page - 1) * 50],
        );
        const listed = await ok(`/customers?sortingField=created&order=${order}&take=50&page=${page}`);
        expect({ order, page, ids: ids(listed) }).toEqual({ order, page, ids: rows.map((row) => row.id) });
      }
    }
    const { rows } = await db.query<{ n: string; live: string }>(
      `SELECT (SELECT coalesce(sum(n), 0) FROM customer_counts WHERE account_id = $1) AS n,
         (SELECT count(*) FROM customers WHERE account_id = $1 AND deleted_at IS NULL) AS live`,
      [setup.accountId],
    );
    expect(rows[0]!.n).toBe(rows[0]!.live);
  });
});
