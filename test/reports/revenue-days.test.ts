import { Client } from 'pg';
import { foldCounters } from '../../src/db/counter-folding';
import { expectStatus, startTwoAccountApp, type ApiClient, type TestApp } from '../support/harness';
import { CARDS, customerWithCard, simpleInvoice } from '../support/payments';

/**
 * The home's revenue window is read from revenue_days (docs/decisions.md §33), sums the triggers on
 * transactions keep in the writing transaction. These tests hold it to the ledger to the cent: what the
 * API writes (payments, refunds, credit notes to the card, to the balance and outside, declined charges)
 * and what any other writer does to the rows (a bulk insert, a settlement, a row moved to another day, a
 * deletion, each from another connection), compared day by day with the same sums over `transactions`.
 */
let app: TestApp;
let api: ApiClient;
let accountId: string;
let otherAccountId: string;
let writers: Client[];

beforeAll(async () => {
  let other: ApiClient;
  ({ app, api, accountId, other, otherAccountId } = await startTwoAccountApp('Revenue'));
  // Another account's charges are never counted in this one's figures.
  const theirs = await customerWithCard(other);
  expectStatus(await other.put(`/invoices/${(await simpleInvoice(other, theirs.customer.id, 4321)).id}`), 200);
  writers = [new Client(process.env.DATABASE_URL), new Client(process.env.DATABASE_URL)];
  await Promise.all(writers.map((client) => client.connect()));
});
afterAll(async () => {
  await Promise.all(writers.map((client) => client.end()));
  await app.close();
});

interface DayFigures {
  currency: string;
  day: string;
  revenue: string;
  failed: string;
  n: string;
}

/** Per currency and UTC day: the ledger's own sums, as GET /reports/overview computed them before §33. */
async function ledgerDays(account: string): Promise<DayFigures[]> {
  const { rows } = await writers[0]!.query<DayFigures>(
    `SELECT currency, to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day,
        coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0)::text AS revenue,
        (count(*) FILTER (WHERE type = 'payment' AND status = 'failed'))::text AS failed, count(*)::text AS n
      FROM transactions WHERE account_id = $1 AND type IN ('payment', 'refund')
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [account],
  );
  return rows;
}

/** The same from revenue_days, summed over a key's rows (deltas and folded sums); days that cancelled out are left out. */
async function summaryDays(account: string): Promise<DayFigures[]> {
  const { rows } = await writers[0]!.query<DayFigures>(
    `SELECT currency, to_char(day, 'YYYY-MM-DD') AS day, sum(revenue)::text AS revenue,
        sum(failed_payments)::text AS failed, sum(n)::text AS n
      FROM revenue_days WHERE account_id = $1 GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2`,
    [account],
  );
  return rows;
}

async function expectSummaryExact(): Promise<void> {
  for (const account of [accountId, otherAccountId])
    expect(await summaryDays(account)).toEqual(await ledgerDays(account));
}

async function overviewUsd() {
  const body = expectStatus(await api.get('/reports/overview'), 200);
  return body.currencies.find((figure: { currency: string }) => figure.currency === 'USD');
}

const credit = (body: Record<string, unknown>) => api.post('/credit-notes', body);

describe('revenue_days', () => {
  it('matches the ledger to the cent after payments, refunds, credit notes of every kind and a declined charge', async () => {
    const { customer } = await customerWithCard(api, CARDS.succeeds);
    const pay = async (amount: number) => {
      const paid = expectStatus(await api.put(`/invoices/${(await simpleInvoice(api, customer.id, amount)).id}`), 200);
      expect(paid.status).toBe('paid');
      return paid;
    };
    const first = await pay(5000);
    const second = await pay(3000);
    const third = await pay(2000);
    expectStatus(await api.post(`/invoices/${first.id}/refund`, { amount: 700 }), 201, 'refund');
    // A credit note back to the card is a refund; to the balance or settled outside moves no money through
    // the processor (an adjustment at most), so it is not revenue (docs/api.md, "Reports").
    expectStatus(await credit({ invoice: second.id, amount: 1000, reason: 'order_change', refund_to: 'card' }), 201);
    expectStatus(
      await credit({ invoice: third.id, amount: 500, reason: 'order_change', refund_to: 'customer_balance' }),
      201,
    );
    expectStatus(await credit({ invoice: third.id, amount: 300, reason: 'duplicate', refund_to: 'outside' }), 201);
    // An open invoice credited lowers what is due: no transaction.
    const open = await simpleInvoice(api, customer.id, 900);
    expectStatus(await api.post(`/invoices/${open.id}/finalize`), 200, 'finalize');
    expectStatus(await credit({ invoice: open.id, amount: 400, reason: 'order_change' }), 201);
    const declined = await customerWithCard(api, CARDS.declined);
    const failing = await simpleInvoice(api, declined.customer.id, 800);
    expect((await api.put(`/invoices/${failing.id}`)).body).toMatchObject({ status: 'open', attempt_count: 1 });

    await expectSummaryExact();
    const revenue = 5000 + 3000 + 2000 - 700 - 1000;
    const figures = await overviewUsd();
    expect(figures).toMatchObject({ revenue: { total: revenue }, failed_payments: 1 });
    expect(figures.revenue.daily.at(-1)).toEqual({ date: new Date().toISOString().slice(0, 10), amount: revenue });

    // The ledger as the API lists it says the same.
    const ledger = expectStatus(await api.get('/transactions?take=100'), 200).data as {
      type: string;
      status: string;
      amount: number;
    }[];
    const listed = ledger.filter((row) => ['payment', 'refund'].includes(row.type) && row.status === 'succeeded');
    expect(listed.reduce((sum, row) => sum + row.amount, 0)).toBe(revenue);
    expect(ledger.some((row) => row.type === 'adjustment' && row.amount === -300)).toBe(true);
  });

  it('stays exact whatever writes the rows: a bulk insert, a settlement, a move to another day and a deletion, from two connections', async () => {
    const [one, two] = writers as [Client, Client];
    const day = (ago: number, hour = 12) => new Date(Date.UTC(2026, 9, 1 - ago, hour));
    const before = await overviewUsd();
    const rows: [string, string, string, number, string, Date][] = [
      ['txn_rd_1', 'payment', 'succeeded', 1234, 'EUR', day(0)],
      ['txn_rd_2', 'payment', 'pending', 999, 'EUR', day(0, 23)],
      ['txn_rd_3', 'refund', 'succeeded', -234, 'EUR', day(1)],
      ['txn_rd_4', 'payment', 'failed', 500, 'EUR', day(1)],
      ['txn_rd_5', 'adjustment', 'succeeded', -50, 'EUR', day(1)],
      ['txn_rd_6', 'payment', 'succeeded', 777, 'USD', new Date()],
    ];
    await one.query(
      `INSERT INTO transactions (id, account_id, type, status, amount, currency, created_at)
       SELECT id, $1, type, status, amount, currency, created_at
       FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::timestamptz[])
         AS r(id, type, status, amount, currency, created_at)`,
      [
        accountId,
        rows.map((row) => row[0]),
        rows.map((row) => row[1]),
        rows.map((row) => row[2]),
        rows.map((row) => row[3]),
        rows.map((row) => row[4]),
        rows.map((row) => row[5]),
      ],
    );
    await expectSummaryExact();
    expect((await overviewUsd()).revenue.total).toBe(before.revenue.total + 777);

    // Settled on another connection (another slot): the sum over the slots moves, the count does not.
    await two.query(`UPDATE transactions SET status = 'succeeded' WHERE id = 'txn_rd_2'`);
    await expectSummaryExact();
    // A row moved across a UTC day, and one turned from payment into adjustment, in one statement.
    await one.query(
      `UPDATE transactions SET created_at = CASE id WHEN 'txn_rd_1' THEN created_at + interval '1 day' ELSE created_at END,
         type = CASE id WHEN 'txn_rd_4' THEN 'adjustment' ELSE type END
       WHERE id IN ('txn_rd_1', 'txn_rd_4')`,
    );
    await expectSummaryExact();
    // Folded (as the worker does every second): the same figures from one row per key.
    await foldCounters(app.prisma, 1_000_000);
    await expectSummaryExact();
    const { rows: keys } = await one.query(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM revenue_days WHERE account_id = $1 GROUP BY day, currency HAVING count(*) > 1) k`,
      [accountId],
    );
    expect(keys[0].n).toBe(0);
    // An update of nothing the figures read appends no row to the summary.
    const { rows: last } = await one.query('SELECT coalesce(max(id), 0)::text AS id FROM revenue_days');
    await two.query(`UPDATE transactions SET description = 'noted' WHERE account_id = $1`, [accountId]);
    const { rows: appended } = await one.query(
      'SELECT count(*)::int AS n FROM revenue_days WHERE account_id = $1 AND NOT folded AND id > $2',
      [accountId, last[0].id],
    );
    expect(appended[0].n).toBe(0);
    // Deleted from the other connection than the one that inserted them.
    await two.query(`DELETE FROM transactions WHERE id LIKE 'txn_rd_%'`);
    await expectSummaryExact();
    expect((await overviewUsd()).revenue.total).toBe(before.revenue.total);
    // A rolled-back write leaves nothing behind.
    await one.query('BEGIN');
    await one.query(
      `INSERT INTO transactions (id, account_id, type, status, amount, currency) VALUES ('txn_rd_7', $1, 'payment', 'succeeded', 100, 'USD')`,
      [accountId],
    );
    await one.query('ROLLBACK');
    await expectSummaryExact();
  });
});
