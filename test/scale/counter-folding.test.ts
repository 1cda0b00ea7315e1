import { foldCounters } from '../../src/db/counter-folding';
import { startTwoAccountApp, type TwoAccountApp } from '../support/harness';
import { customerWithCard, simpleInvoice } from '../support/payments';

// The list counters are appended by triggers and folded by the worker (docs/decisions.md §23): many
// writers of one account at once never wait on each other for a counter nor deadlock, and every count
// and sum the API answers stays exact before, during and after folding, which leaves one row per key.

let setup: TwoAccountApp;

beforeAll(async () => {
  setup = await startTwoAccountApp();
});
afterAll(async () => {
  await setup.app.close();
});

async function apiFigures() {
  const [all, open, paid, balance] = await Promise.all([
    setup.api.get('/invoices?take=1'),
    setup.api.get('/invoices?take=1&status=open'),
    setup.api.get('/invoices?take=1&status=paid'),
    setup.api.get('/balance'),
  ]);
  return {
    invoices: all.body.meta.itemsTotal as number,
    open: open.body.meta.itemsTotal as number,
    paid: paid.body.meta.itemsTotal as number,
    balance: balance.body,
  };
}

async function sqlFigures() {
  const db = setup.app.prisma;
  const byStatus = await db.invoice.groupBy({ by: ['status'], where: { accountId: setup.accountId }, _count: true });
  const count = (status: string) => byStatus.find((row) => row.status === status)?._count ?? 0;
  const succeeded = await db.transaction.aggregate({
    where: { accountId: setup.accountId, status: 'succeeded' },
    _sum: { amount: true },
  });
  return {
    invoices: byStatus.reduce((sum, row) => sum + row._count, 0),
    open: count('open'),
    paid: count('paid'),
    succeeded: Number(succeeded._sum.amount ?? 0),
  };
}

async function rowsPerKey(): Promise<{ keys: number; rows: number; unfolded: number }> {
  const [row] = await setup.app.prisma.$queryRaw<{ keys: bigint; rows: bigint; unfolded: bigint }[]>`
    SELECT count(DISTINCT (status, day)) AS keys, count(*) AS rows, count(*) FILTER (WHERE NOT folded) AS unfolded
    FROM invoice_counts WHERE account_id = ${setup.accountId}`;
  return { keys: Number(row!.keys), rows: Number(row!.rows), unfolded: Number(row!.unfolded) };
}

it('40 invoices created, finalized and charged at once while folding runs: none refused, every count exact', async () => {
  const { customer } = await customerWithCard(setup.api);
  let writing = true;
  let folds = 0;
  const folder = (async () => {
    while (writing) {
      await foldCounters(setup.app.prisma);
      folds += 1;
    }
  })();
  const statuses = await Promise.all(
    Array.from({ length: 40 }, async (_, index) => {
      const invoice = await simpleInvoice(setup.api, customer.id, 1000 + index);
      const finalized = await setup.api.post(`/invoices/${invoice.id}/finalize`);
      // Half are left open, half are paid (a charge: a transaction and a status change in one request).
      const paid = index % 2 === 0 ? await setup.api.put(`/invoices/${invoice.id}`) : null;
      return [finalized.status, paid?.body.status ?? 'open'];
    }),
  );
  writing = false;
  await folder;
  expect(folds).toBeGreaterThan(0);
  expect(statuses.filter(([finalized]) => finalized !== 200)).toEqual([]);
  expect(statuses.filter(([, status]) => status === 'paid')).toHaveLength(20);

  const sql = await sqlFigures();
  expect(sql).toMatchObject({ invoices: 40, open: 20, paid: 20 });
  const before = await apiFigures();
  expect(before).toMatchObject({ invoices: sql.invoices, open: sql.open, paid: sql.paid });

  await foldCounters(setup.app.prisma);
  // Every counter table is folded for the account: no delta row left in any of them.
  const [unfolded] = await setup.app.prisma.$queryRaw<{ n: bigint }[]>`
    SELECT (SELECT count(*) FROM invoice_counts WHERE account_id = ${setup.accountId} AND NOT folded)
      + (SELECT count(*) FROM balance_sums WHERE account_id = ${setup.accountId} AND NOT folded)
      + (SELECT count(*) FROM revenue_days WHERE account_id = ${setup.accountId} AND NOT folded)
      + (SELECT count(*) FROM event_counts WHERE account_id = ${setup.accountId} AND NOT folded)
      + (SELECT count(*) FROM customer_counts WHERE account_id = ${setup.accountId} AND NOT folded) AS n`;
  expect(unfolded!.n).toBe(0n);
  const [customers] = await setup.app.prisma.$queryRaw<{ rows: bigint; n: bigint }[]>`
    SELECT count(*) AS rows, coalesce(sum(n), 0)::bigint AS n FROM customer_counts WHERE account_id = ${setup.accountId}`;
  expect(customers).toEqual({ rows: 1n, n: 1n });
  const folded = await rowsPerKey();
  expect(folded.unfolded).toBe(0);
  expect(folded.rows).toBe(folded.keys);
  expect(await apiFigures()).toEqual(before);
  const available = (before.balance.available as { amount: number; currency: string }[]).find(
    (entry) => entry.currency.toUpperCase() === 'USD',
  );
  expect(available?.amount).toBe(sql.succeeded);
});

it('a key whose rows net to nothing leaves no folded row, and another account is never folded into this one', async () => {
  const { customer } = await customerWithCard(setup.other);
  const invoice = await simpleInvoice(setup.other, customer.id, 500);
  expect((await setup.other.post(`/invoices/${invoice.id}/finalize`)).status).toBe(200);
  await foldCounters(setup.app.prisma);
  // The draft's +1 and -1 net to nothing: only the open invoice is left.
  const rows = await setup.app.prisma.$queryRaw<{ status: string; n: bigint; folded: boolean }[]>`
    SELECT status, n, folded FROM invoice_counts WHERE account_id = ${setup.otherAccountId}`;
  expect(rows).toEqual([{ status: 'open', n: 1n, folded: true }]);
  expect((await setup.other.get('/invoices?take=1')).body.meta.itemsTotal).toBe(1);
  expect((await apiFigures()).invoices).toBe(40);
});
