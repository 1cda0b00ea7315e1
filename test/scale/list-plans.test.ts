import { Client } from 'pg';
import { freshDatabase } from '../support/fresh-database';
import { paths } from '../../src/config';
import { migrate } from '../../src/db/migrator';
import type { BoundStatement } from '../../src/db/sql';
import {
  customerCursorStatements,
  customerEmailStatement,
  customerOffsetDayStatement,
  customerPageStatement,
  customerSearchTrigramStatement,
  customerSearchWindowStatement,
  type CustomerSort,
} from '../../src/customers/customer.records';
import {
  invoiceCountStatement,
  invoiceCursorStatement,
  invoiceOffsetDayStatement,
  invoicePageStatement,
  type InvoiceFilters,
} from '../../src/invoices/invoice-list.records';
import { BALANCE_SUMS } from '../../src/transactions/transaction.records';
import {
  deliveryCountStatement,
  deliveryListStatement,
  type DeliveryLogFilters,
} from '../../src/webhooks/delivery-log.records';
import {
  transactionCountStatement,
  transactionListStatement,
  type TransactionFilters,
} from '../../src/transactions/transaction-list.records';
import { eventCountStatement, eventListStatement, type EventFilter } from '../../src/lib/event.records';
import { subscriptionCursorStatement } from '../../src/subscriptions/subscription-list.records';
import { emailCursorStatement } from '../../src/emails/email.records';
import { retentionBatchStatement } from '../../src/retention/retention.records';
import { RETENTION_TARGETS } from '../../src/retention/retention-targets';
import { containsPattern } from '../../src/db/text-search';
import { OVERVIEW_STATEMENTS } from '../../src/reports/overview.records';
import { analyzeSeededTables, openSeedSession, seedChunk, seedSupportingRows } from '../../src/scale/seed.records';

// The list and search statements at scale (docs/decisions.md §23): on tables of meaningful size, seeded
// with `npm run seed:scale`'s statements and analyzed, each statement the lists run is planned on its index,
// never a sequential scan of a big table, so a change that loses an index (or writes a query no index
// serves) fails here. The statements come from the data-access modules, as the services build them.

const SIZES = { customers: 50_000, invoices: 60_000, events: 20_000, deliveries: 40_000, usageEvents: 20_000 };
const BIG_TABLES = ['customers', 'invoices', 'invoice_lines', 'transactions', 'events', 'webhook_deliveries'];
const ACCOUNT = 'acct_plansBig';
const OTHER = 'acct_plansOther';
let client: Client;
let sample: { customer: string; subscription: string; invoice: string; created: Date; email: string; name: string };
let delivery: { id: string; created_at: Date; destination_id: string; event_id: string };
let transaction: { id: string; created_at: Date; customer_id: string; invoice_id: string };
let event: { id: string; created_at: Date; seq: string };

async function seedAccount(id: string, sizes: typeof SIZES): Promise<void> {
  await client.query('INSERT INTO accounts (id, name) VALUES ($1, $2)', [id, `Plans ${id}`]);
  await openSeedSession(client, {
    accountId: id,
    accountName: `Plans ${id}`,
    seed: 'plans',
    until: new Date('2026-11-01T00:00:00Z'),
    spanSeconds: 3 * 365 * 86_400,
    sizes,
  });
  await seedSupportingRows(client, sizes);
  for (const table of ['customers', 'invoices', 'events', 'deliveries', 'usageEvents'] as const) {
    for (let first = 1; first <= sizes[table]; first += 25_000) {
      await seedChunk(client, table, first, Math.min(sizes[table], first + 24_999));
    }
  }
}

beforeAll(async () => {
  const url = await freshDatabase('list_plans');
  await migrate(url, paths.migrations);
  client = new Client({ connectionString: url });
  await client.connect();
  await seedAccount(ACCOUNT, SIZES);
  await seedAccount(OTHER, { customers: 5_000, invoices: 5_000, events: 2_000, deliveries: 2_000, usageEvents: 2_000 });
  await client.query('VACUUM');
  await analyzeSeededTables(client);
  const { rows } = await client.query<{
    customer_id: string;
    subscription_id: string;
    id: string;
    created_at: Date;
    customer_email: string;
    customer_name: string;
  }>(
    `SELECT customer_id, subscription_id, id, created_at, customer_email, customer_name FROM invoices
     WHERE account_id = $1 AND subscription_id IS NOT NULL AND customer_email IS NOT NULL ORDER BY created_at LIMIT 1 OFFSET 30000`,
    [ACCOUNT],
  );
  const row = rows[0]!;
  sample = {
    customer: row.customer_id,
    subscription: row.subscription_id,
    invoice: row.id,
    created: row.created_at,
    email: row.customer_email,
    name: row.customer_name,
  };
  const pick = async <T>(sql: string) => (await client.query(sql, [ACCOUNT])).rows[0] as T;
  delivery = await pick(
    `SELECT id, created_at, destination_id, event_id FROM webhook_deliveries WHERE account_id = $1 ORDER BY created_at LIMIT 1 OFFSET 20000`,
  );
  transaction = await pick(
    `SELECT id, created_at, customer_id, invoice_id FROM transactions WHERE account_id = $1 ORDER BY created_at LIMIT 1 OFFSET 10000`,
  );
  event = await pick(
    `SELECT id, created_at, seq::text AS seq FROM events WHERE account_id = $1 ORDER BY created_at LIMIT 1 OFFSET 10000`,
  );
}, 600_000);
afterAll(() => client.end());

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

async function planOf(bound: BoundStatement): Promise<PlanNode[]> {
  const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (FORMAT JSON) ${bound.statement.text}`,
    bound.values,
  );
  return nodes(rows[0]!['QUERY PLAN'][0].Plan);
}

/** The plan reads no big table sequentially, and reads `index` (or each of `indexes`). */
async function expectIndexPlan(bound: BoundStatement, ...indexes: string[]): Promise<void> {
  const plan = await planOf(bound);
  const sequential = plan.filter(
    (node) => node['Node Type'] === 'Seq Scan' && BIG_TABLES.includes(node['Relation Name']!),
  );
  expect({ text: bound.statement.text, sequential: sequential.map((node) => node['Relation Name']) }).toEqual({
    text: bound.statement.text,
    sequential: [],
  });
  const used = plan.map((node) => node['Index Name']).filter(Boolean);
  for (const index of indexes)
    expect({ text: bound.statement.text, used }).toEqual({
      text: bound.statement.text,
      used: expect.arrayContaining([index]),
    });
}

const customerIndex: Record<CustomerSort, string> = {
  created: 'customers_account_id_created_at_id_deleted_at_idx',
  name: 'customers_account_id_name_id_email_deleted_at_idx',
  email: 'customers_account_id_email_id_deleted_at_idx',
};

describe('GET /customers', () => {
  it.each(['created', 'name', 'email'] as CustomerSort[])(
    'sorted by %s: a first page, a page at an offset and pages after and before a cursor read its index',
    async (sort) => {
      for (const order of ['ASC', 'DESC'] as const) {
        await expectIndexPlan(customerPageStatement(ACCOUNT, { sort, order, take: 10, skip: 0 }), customerIndex[sort]);
        await expectIndexPlan(
          customerPageStatement(ACCOUNT, { sort, order, take: 10, skip: 200 }),
          customerIndex[sort],
        );
        const cursor = { id: sample.customer, createdAt: sample.created, name: sample.name, email: sample.email };
        for (const forward of [true, false]) {
          const [first, ...rest] = customerCursorStatements(ACCOUNT, { sort, order, take: 20 }, cursor, forward);
          await expectIndexPlan(first!, customerIndex[sort]);
          for (const run of rest) await expectIndexPlan(run, customerIndex[sort]);
        }
        const noEmail = { ...cursor, email: null };
        for (const run of customerCursorStatements(ACCOUNT, { sort, order, take: 20 }, noEmail, true))
          await expectIndexPlan(run, customerIndex[sort]);
      }
    },
  );

  it('with a search, a first page reads an index, not every customer', async () => {
    for (const sort of ['created', 'name', 'email'] as CustomerSort[]) {
      await expectIndexPlan(
        customerPageStatement(ACCOUNT, { sort, order: 'DESC', take: 10, skip: 0, pattern: containsPattern('Ada') }),
      );
    }
  });
});

describe('GET /customers/search', () => {
  it('reads a window of the name index, the trigram indexes for part of a name, and the email index for a whole email', async () => {
    await expectIndexPlan(
      customerSearchWindowStatement(ACCOUNT, containsPattern('Ada'), 20_000, 100),
      customerIndex.name,
    );
    await expectIndexPlan(
      customerSearchTrigramStatement(ACCOUNT, containsPattern('Lovelace'), 100),
      'customers_name_idx',
      'customers_email_idx',
    );
    await expectIndexPlan(
      customerSearchTrigramStatement(ACCOUNT, containsPattern(sample.email.toUpperCase()), 100),
      'customers_email_idx',
    );
    await expectIndexPlan(customerEmailStatement(ACCOUNT, sample.email.toUpperCase(), 100), customerIndex.email);
  });
});

describe('GET /invoices', () => {
  const filters: [string, InvoiceFilters, string][] = [
    ['no filter', {}, 'invoices_account_id_created_at_id_idx'],
    ['status', { status: 'open' }, 'invoices_account_id_status_created_at_id_idx'],
    ['customer', { customer: '' }, 'invoices_account_id_customer_id_created_at_id_idx'],
    ['subscription', { subscription: '' }, 'invoices_account_id_subscription_id_created_at_id_idx'],
    [
      'created range',
      { from: new Date('2025-03-01T12:00:00Z'), until: new Date('2025-06-01T08:00:00Z') },
      'invoices_account_id_created_at_id_idx',
    ],
    [
      'status and created range',
      { status: 'open', from: new Date('2025-03-01T12:00:00Z') },
      'invoices_account_id_status_created_at_id_idx',
    ],
  ];
  const resolved = (given: InvoiceFilters): InvoiceFilters => ({
    ...given,
    ...(given.customer !== undefined ? { customer: sample.customer } : {}),
    ...(given.subscription !== undefined ? { subscription: sample.subscription } : {}),
  });

  it.each(filters)(
    'filtered by %s: the first page, a cursor page and the exact count read indexes',
    async (_name, given, index) => {
      const filter = resolved(given);
      await expectIndexPlan(invoicePageStatement(ACCOUNT, filter, 10, 0), index);
      const at = {
        id: sample.invoice,
        createdAt: sample.created,
        status: 'paid',
        customerId: sample.customer,
        subscriptionId: null,
      };
      await expectIndexPlan(invoiceCursorStatement(ACCOUNT, filter, at, true, 50), index);
      await expectIndexPlan(invoiceCursorStatement(ACCOUNT, filter, at, false, 50), index);
      await expectIndexPlan(invoiceCountStatement(ACCOUNT, filter));
    },
  );

  it('a deep page finds its day in invoice_counts, then reads one day of the index', async () => {
    await expectIndexPlan(invoiceOffsetDayStatement(ACCOUNT, undefined, 40_000));
    await expectIndexPlan(invoiceOffsetDayStatement(ACCOUNT, 'paid', 30_000));
    await expectIndexPlan(
      invoicePageStatement(ACCOUNT, { until: new Date('2025-01-02T00:00:00Z') }, 50, 30),
      'invoices_account_id_created_at_id_idx',
    );
  });
});

describe('GET /balance and GET /webhook/logs', () => {
  it('sum a few counter rows, not the transactions or deliveries', async () => {
    await expectIndexPlan({ statement: BALANCE_SUMS, values: [ACCOUNT] });
    await expectIndexPlan(deliveryCountStatement(ACCOUNT, {}));
    await expectIndexPlan(deliveryCountStatement(ACCOUNT, { status: 'failure', eventType: 'invoice.paid' }));
  });
});

/** The tables the plan reads, by any scan. */
async function relationsOf(bound: BoundStatement): Promise<string[]> {
  return (await planOf(bound)).map((node) => node['Relation Name']).filter((name): name is string => !!name);
}

describe('GET /reports/overview (the home) and GET /events', () => {
  it('the revenue window sums revenue_days by its key, never the ledger (docs/decisions.md §33)', async () => {
    const window = { statement: OVERVIEW_STATEMENTS.DAILY_LEDGER, values: [ACCOUNT, '2026-10-03', '2026-11-02'] };
    await expectIndexPlan(window);
    expect(await relationsOf(window)).toEqual(['revenue_days']);
  });

  it('the exact count of events sums event_counts, reading events only for a range’s partial days or one object (§34)', async () => {
    const count = (filter: Omit<EventFilter, 'accountId' | 'created'>, created: EventFilter['created'] = {}) =>
      eventCountStatement({ accountId: ACCOUNT, created, ...filter });
    for (const summed of [
      count({}),
      count({ type: 'invoice.paid' }),
      count({ type: 'invoice.*' }),
      count({}, { gte: new Date('2025-03-01T00:00:00Z'), lt: new Date('2025-06-01T00:00:00Z') }),
    ]) {
      await expectIndexPlan(summed);
      expect(await relationsOf(summed)).toEqual(expect.not.arrayContaining(['events']));
    }
    const cut = { gt: new Date('2025-03-01T12:00:00Z'), lte: new Date('2025-06-01T08:00:00Z') };
    await expectIndexPlan(count({}, cut), 'events_account_id_created_at_idx');
    await expectIndexPlan(count({ type: 'invoice.paid' }, cut), 'events_account_id_type_created_at_idx');
    await expectIndexPlan(count({ objectId: sample.invoice }), 'events_account_id_object_id_created_at_idx');
    await expectIndexPlan(count({ customerId: sample.customer }), 'events_account_id_customer_id_created_at_idx');
  });
});

describe('cursors and pages of the webhook logs, transactions and events (docs/decisions.md §36)', () => {
  it.each<[string, DeliveryLogFilters, string]>([
    ['no filter', {}, 'webhook_deliveries_account_id_created_at_id_idx'],
    ['status', { status: 'failure' }, 'webhook_deliveries_account_id_status_created_at_id_idx'],
    ['event type', { eventType: 'invoice.paid' }, 'webhook_deliveries_account_id_event_type_created_at_id_idx'],
    ['destination', { destination: '' }, 'webhook_deliveries_destination_id_created_at_id_account_id_idx'],
  ])(
    'webhook logs filtered by %s: a page, a deep page and cursor pages read its index',
    async (_name, given, index) => {
      const filters = given.destination !== undefined ? { ...given, destination: delivery.destination_id } : given;
      // The seeded account has one destination: its index or the account's serve the first pages equally, and a
      // deep page skips entries of either alone (the destination's holds the account too).
      await expectIndexPlan(deliveryListStatement(ACCOUNT, filters, { take: 10, skip: 0 }));
      await expectIndexPlan(deliveryListStatement(ACCOUNT, filters, { take: 10, skip: 20_000 }));
      const at: [Date, string] = [delivery.created_at, delivery.id];
      await expectIndexPlan(deliveryListStatement(ACCOUNT, filters, { at, forward: true, take: 51 }));
      await expectIndexPlan(deliveryListStatement(ACCOUNT, filters, { at, forward: false, take: 51 }));
      if (given.destination === undefined) {
        for (const bound of [
          deliveryListStatement(ACCOUNT, filters, { take: 10, skip: 0 }),
          deliveryListStatement(ACCOUNT, filters, { at, forward: true, take: 51 }),
        ])
          await expectIndexPlan(bound, index);
      }
    },
  );

  it.each<[string, TransactionFilters, string]>([
    ['no filter', {}, 'transactions_account_id_created_at_id_idx'],
    // Every seeded transaction succeeded, so the planner reads no failed one from any index it likes.
    ['status', { status: 'failed' }, ''],
    ['type', { type: 'refund' }, 'transactions_account_id_type_created_at_id_idx'],
    ['customer', { customer: '' }, 'transactions_account_id_customer_id_created_at_id_idx'],
    ['invoice', { invoice: '' }, 'transactions_account_id_invoice_id_created_at_id_idx'],
  ])('transactions filtered by %s: a page, cursor pages and the count read indexes', async (_name, given, index) => {
    const filters = {
      ...given,
      ...(given.customer !== undefined ? { customer: transaction.customer_id } : {}),
      ...(given.invoice !== undefined ? { invoice: transaction.invoice_id } : {}),
    };
    const indexes = index ? [index] : [];
    await expectIndexPlan(transactionListStatement(ACCOUNT, filters, { take: 10, skip: 0 }), ...indexes);
    const at: [Date, string] = [transaction.created_at, transaction.id];
    await expectIndexPlan(transactionListStatement(ACCOUNT, filters, { at, forward: true, take: 51 }), ...indexes);
    await expectIndexPlan(transactionListStatement(ACCOUNT, filters, { at, forward: false, take: 51 }), ...indexes);
    await expectIndexPlan(transactionCountStatement(ACCOUNT, filters));
  });

  it.each<[string, Omit<EventFilter, 'accountId' | 'created'>, string]>([
    ['no filter', {}, 'events_account_id_created_at_idx'],
    ['type', { type: 'invoice.paid' }, 'events_account_id_type_created_at_idx'],
    ['object', { objectId: 'in_unknown' }, 'events_account_id_object_id_created_at_idx'],
    ['customer', { customerId: 'cus_unknown' }, 'events_account_id_customer_id_created_at_idx'],
  ])('events filtered by %s: a page and cursor pages read its index', async (_name, given, index) => {
    const filter: EventFilter = { accountId: ACCOUNT, created: {}, ...given };
    await expectIndexPlan(eventListStatement(filter, { take: 10, skip: 0 }), index);
    const at: [Date, string] = [event.created_at, event.seq];
    await expectIndexPlan(eventListStatement(filter, { at, forward: true, take: 51 }), index);
    await expectIndexPlan(eventListStatement(filter, { at, forward: false, take: 51 }), index);
  });
});

describe('a deep page of customers (docs/decisions.md §36)', () => {
  it('in creation order finds its day in customer_counts, then reads one day of the index', async () => {
    await expectIndexPlan(customerOffsetDayStatement(ACCOUNT, 'DESC', 40_000));
    await expectIndexPlan(customerOffsetDayStatement(ACCOUNT, 'ASC', 40_000));
    for (const window of [
      { createdUntil: new Date('2025-01-02T00:00:00Z') },
      { createdFrom: new Date('2025-01-01T00:00:00Z') },
    ])
      await expectIndexPlan(
        customerPageStatement(ACCOUNT, { sort: 'created', order: 'DESC', take: 20, skip: 30, ...window }),
        customerIndex.created,
      );
  });

  it.each(['created', 'name', 'email'] as CustomerSort[])(
    'sorted by %s, skips index entries alone (an index-only scan) and reads only the page’s rows',
    async (sort) => {
      for (const order of ['ASC', 'DESC'] as const) {
        const bound = customerPageStatement(ACCOUNT, { sort, order, take: 20, skip: 40_000 });
        await expectIndexPlan(bound, customerIndex[sort]);
        const plan = await planOf(bound);
        const skipping = plan.find((node) => node['Index Name'] === customerIndex[sort]);
        expect({ sort, order, node: skipping?.['Node Type'] }).toEqual({ sort, order, node: 'Index Only Scan' });
      }
    },
  );
});

describe('the retention sweep (docs/decisions.md §24)', () => {
  // As in a steady state, most rows are inside their period: the cutoff a month into the seeded span (every
  // seeded row is older than 30 days, and with all of them past it a sequential read would be the right plan).
  const periodMs = Date.now() - new Date('2023-12-01T00:00:00Z').getTime();
  it.each(RETENTION_TARGETS)('%s: a batch walks an index from its cursor, never the whole table', async (target) => {
    await expectIndexPlan(retentionBatchStatement(target, periodMs, null, 1_000));
  });
});

describe('GET /subscriptions and GET /emails after a cursor (docs/decisions.md §36)', () => {
  const SUBSCRIPTIONS = 40_000;
  const at = { id: 'sub_plans20000', createdAt: new Date('2026-01-14T21:20:00Z') };
  beforeAll(async () => {
    // Their rows as the service writes them, enough that reading either table through is never the cheap plan.
    await client.query(
      `WITH c AS (SELECT array_agg(id) AS ids FROM (SELECT id FROM customers WHERE account_id = $1 LIMIT 1000) x)
       INSERT INTO subscriptions (id, account_id, customer_id, status, currency, interval, interval_count,
         billing_cycle_anchor, start_date, created_at, updated_at)
       SELECT 'sub_plans' || n, $1, c.ids[1 + n % 1000], (ARRAY['active', 'canceled', 'past_due'])[1 + n % 3], 'usd',
         'month', 1, now(), now(), timestamptz '2026-01-01' + n * interval '1 minute', now()
       FROM generate_series(1, $2::int) n, c`,
      [ACCOUNT, SUBSCRIPTIONS],
    );
    // Emails of other accounts over the same minutes, as in a shared table: the index that serves the
    // retention sweep (created_at alone) would read them all, the account's list index none.
    await client.query(`INSERT INTO accounts (id, name) VALUES ('acct_plansThird', 'Plans third')`);
    for (const [account, prefix] of [
      [ACCOUNT, 'plans'],
      [OTHER, 'other'],
      ['acct_plansThird', 'third'],
    ])
      await client.query(
        `INSERT INTO emails (id, account_id, kind, to_address, subject, status, invoice_id, customer_id, message_id, created_at)
         SELECT 'eml_' || $3 || n, $1, 'invoice', 'to' || n || '@example.com', 'Invoice', 'sent', 'inv_' || $3 || (n % 5000),
           'cus_' || $3 || (n % 3000), $3 || '-' || n || '@example.com', timestamptz '2026-01-01' + n * interval '1 minute'
         FROM generate_series(1, $2::int) n`,
        [account, SUBSCRIPTIONS, prefix],
      );
    await client.query('ANALYZE subscriptions');
    await client.query('ANALYZE emails');
    BIG_TABLES.push('subscriptions', 'emails');
  }, 120_000);

  it.each([true, false])('forward %s: each filter reads its index from the cursor', async (forward) => {
    const window = { at, forward, take: 21 };
    const customer = (await client.query('SELECT customer_id FROM subscriptions WHERE id = $1', ['sub_plans20000']))
      .rows[0].customer_id;
    await expectIndexPlan(
      subscriptionCursorStatement(ACCOUNT, {}, window),
      'subscriptions_account_id_created_at_id_idx',
    );
    await expectIndexPlan(
      subscriptionCursorStatement(ACCOUNT, { status: 'canceled' }, window),
      'subscriptions_account_id_status_created_at_id_idx',
    );
    await expectIndexPlan(
      subscriptionCursorStatement(ACCOUNT, { customer }, window),
      'subscriptions_account_id_customer_id_created_at_id_idx',
    );
    const emailAt = { id: 'eml_plans20000', createdAt: at.createdAt };
    await expectIndexPlan(
      emailCursorStatement(ACCOUNT, {}, { ...window, at: emailAt }),
      'emails_account_id_created_at_id_idx',
    );
    await expectIndexPlan(
      emailCursorStatement(ACCOUNT, { invoiceId: 'inv_plans0' }, { ...window, at: emailAt }),
      'emails_invoice_id_idx',
    );
  });
});

describe('usage events seeded by `npm run seed:scale -- --usage-events N`', () => {
  it('writes N events of the account meter, one in ten the first customer, over the 90 days before until', async () => {
    const { rows } = await client.query<{ events: string; heaviest: string; first: Date; last: Date; meters: string }>(
      `SELECT count(*)::text AS events, max(per.n)::text AS heaviest, min(e.timestamp) AS first, max(e.timestamp) AS last,
         (SELECT count(*)::text FROM meters m WHERE m.account_id = $1 AND m.event_name = 'api_call' AND m.aggregation = 'sum') AS meters
       FROM usage_events e,
         LATERAL (SELECT count(*) AS n FROM usage_events u WHERE u.account_id = $1 GROUP BY u.customer_id ORDER BY 1 DESC LIMIT 1) per
       WHERE e.account_id = $1 AND e.event_name = 'api_call'`,
      [ACCOUNT],
    );
    const seeded = rows[0]!;
    expect(seeded.events).toBe(String(SIZES.usageEvents));
    expect(seeded.meters).toBe('1');
    // A tenth for the heaviest customer, plus its share of the other nine tenths spread over 50,000.
    expect(Number(seeded.heaviest)).toBeGreaterThanOrEqual(SIZES.usageEvents / 10);
    expect(Number(seeded.heaviest)).toBeLessThan(SIZES.usageEvents / 10 + 10);
    const until = new Date('2026-11-01T00:00:00Z').getTime();
    expect(seeded.last.getTime()).toBe(until);
    expect(seeded.first.getTime()).toBeGreaterThanOrEqual(until - 90 * 86_400_000);
    // Added to their hours as ingestion adds them (docs/decisions.md "Usage totals").
    const hours = await client.query<{ same: boolean }>(
      `SELECT (SELECT sum(event_count) FROM usage_hours WHERE account_id = $1)
          = (SELECT count(*) FROM usage_events WHERE account_id = $1)
        AND (SELECT sum(value_sum) FROM usage_hours WHERE account_id = $1)
          = (SELECT sum((properties->>'tokens')::numeric) FROM usage_events WHERE account_id = $1) AS same`,
      [ACCOUNT],
    );
    expect(hours.rows[0]!.same).toBe(true);
  });
});
