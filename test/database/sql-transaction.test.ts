import pg from 'pg';
import { createPrisma, type Db } from '../../src/db/prisma';
import { execute, queryRows, type AnyTx } from '../../src/db/sql';
import {
  afterCommit,
  runTransaction,
  sqlDollarQuoted,
  sqlLiteral,
  sqlTransaction,
  withSqlSession,
} from '../../src/db/sql-transaction';
import { isDatabaseBusy, isDatabaseUnavailable } from '../../src/db/availability';
import { createTestAccount } from '../support/harness';

// sqlTransaction (src/db/sql-transaction.ts) runs the hot write paths' transactions on a pg client of
// Prisma's pool. What must hold: everything the work runs is in one transaction (committed or rolled
// back together), the work gets named statements and no Prisma model (a model call does not compile),
// and its bounds answer database_busy as Prisma's do.

const COUNTER = {
  name: 'test_counter_of_account',
  text: 'SELECT last_number AS "lastNumber" FROM invoice_number_counters WHERE account_id = $1',
};

let prisma: Db;
beforeAll(() => {
  prisma = createPrisma(process.env.DATABASE_URL!, 3, { maxWait: 1_000, timeout: 700 });
});
afterAll(() => prisma.$disconnect());

const BUMP = {
  name: 'test_counter_bump',
  text: `INSERT INTO invoice_number_counters (account_id, last_number) VALUES ($1, 1)
    ON CONFLICT (account_id) DO UPDATE SET last_number = invoice_number_counters.last_number + 1`,
};
const bump = (tx: AnyTx, accountId: string) => execute(tx, BUMP, [accountId]);

async function counterOf(accountId: string): Promise<number | null> {
  const [row] = await queryRows<{ lastNumber: number }>(prisma, COUNTER, [accountId]);
  return row?.lastNumber ?? null;
}

it('runs its statements on one connection in one transaction, committed together', async () => {
  const { accountId } = await createTestAccount(prisma);
  const seen = await sqlTransaction(prisma, async (tx) => {
    await bump(tx, accountId);
    await bump(tx, accountId);
    const [raw] = await queryRows<{ pid: number }>(
      tx,
      { name: 'test_backend_pid_again', text: 'SELECT pg_backend_pid() AS pid' },
      [],
    );
    const [prepared] = await queryRows<{ pid: number }>(
      tx,
      { name: 'test_backend_pid', text: 'SELECT pg_backend_pid() AS pid' },
      [],
    );
    // Inside: the transaction sees its own writes; outside, nothing yet.
    return {
      inside: (await queryRows<{ lastNumber: number }>(tx, COUNTER, [accountId]))[0]?.lastNumber,
      outside: await counterOf(accountId),
      raw,
      prepared,
    };
  });
  expect(seen).toMatchObject({ inside: 2, outside: null });
  expect(seen.prepared!.pid).toBe(seen.raw!.pid);
  expect(await counterOf(accountId)).toBe(2);
});

it('rolls back everything when the work fails', async () => {
  const { accountId } = await createTestAccount(prisma);
  await expect(
    sqlTransaction(prisma, async (tx) => {
      await bump(tx, accountId);
      throw new Error('refused by the test');
    }),
  ).rejects.toThrow('refused by the test');
  expect(await counterOf(accountId)).toBeNull();
});

it('sends its opening SQL with BEGIN (their rows to the work) and the last statement with COMMIT, in one transaction', async () => {
  const { accountId } = await createTestAccount(prisma);
  const account = sqlLiteral(accountId);
  const bumpText = `INSERT INTO invoice_number_counters (account_id, last_number) VALUES (${account}, 1)
    ON CONFLICT (account_id) DO UPDATE SET last_number = invoice_number_counters.last_number + 1`;
  const seen = await sqlTransaction(
    prisma,
    async (tx, [bumped, read]) => {
      const opened = (await queryRows<{ lastNumber: number }>(tx, COUNTER, [accountId]))[0]?.lastNumber;
      expect(bumped).toEqual([]);
      expect(read).toEqual([{ lastNumber: 1 }]);
      const outside = await counterOf(accountId);
      await bump(tx, accountId);
      // The value quoted under a tag it does not hold: '$q$' inside it is text.
      const [row] = (await tx.commitWith({
        text: `${bumpText} RETURNING last_number AS "lastNumber", ${sqlDollarQuoted("it's $q$ and $qq$")} AS quoted, ${sqlDollarQuoted('ends with $q')} AS tail`,
      })) as { lastNumber: number; quoted: string; tail: string }[];
      return { opened, outside, row };
    },
    undefined,
    [
      { text: bumpText },
      { text: `SELECT last_number AS "lastNumber" FROM invoice_number_counters WHERE account_id = ${account}` },
    ],
  );
  expect(seen).toEqual({
    opened: 1,
    outside: null,
    row: { lastNumber: 3, quoted: "it's $q$ and $qq$", tail: 'ends with $q' },
  });
  expect(await counterOf(accountId)).toBe(3);
});

it('rolls back everything when the statement sent with COMMIT fails, and takes no statement after it', async () => {
  const { accountId } = await createTestAccount(prisma);
  await expect(
    sqlTransaction(prisma, async (tx) => {
      await bump(tx, accountId);
      return tx.commitWith({ text: 'SELECT 1 / 0' });
    }),
  ).rejects.toThrow('division by zero');
  expect(await counterOf(accountId)).toBeNull();
  await expect(
    sqlTransaction(prisma, async (tx) => {
      await tx.commitWith({ text: 'SELECT 1' });
      return bump(tx, accountId);
    }),
  ).rejects.toThrow('The transaction has committed');
  expect(await counterOf(accountId)).toBeNull();
});

it('hands the work no Prisma model: a model call does not compile, and fails without writing', async () => {
  const { accountId } = await createTestAccount(prisma);
  let runs = 0;
  await expect(
    sqlTransaction(prisma, async (tx) => {
      runs += 1;
      await bump(tx, accountId);
      // @ts-expect-error: SqlTx has no models; work that needs one runs in Prisma's transaction (runTransaction).
      return (tx.account as { findUnique: () => Promise<unknown> }).findUnique();
    }),
  ).rejects.toThrow(TypeError);
  expect(runs).toBe(1);
  expect(await counterOf(accountId)).toBeNull();
});

it('runs afterCommit hooks once the work has committed, never when it rolled back', async () => {
  const { accountId } = await createTestAccount(prisma);
  const ran: string[] = [];
  await sqlTransaction(prisma, async (tx) => {
    afterCommit(tx, () => ran.push('sql'));
    expect(ran).toEqual([]);
  });
  await sqlTransaction(prisma, async (tx) => {
    afterCommit(tx, () => ran.push('sql again'));
    await bump(tx, accountId);
  });
  await runTransaction(prisma, async (tx) => afterCommit(tx, () => ran.push('prisma')));
  await expect(
    sqlTransaction(prisma, async (tx) => {
      afterCommit(tx, () => ran.push('rolled back'));
      throw new Error('refused by the test');
    }),
  ).rejects.toThrow('refused by the test');
  await expect(
    runTransaction(prisma, async (tx) => {
      afterCommit(tx, () => ran.push('rolled back'));
      throw new Error('refused by the test');
    }),
  ).rejects.toThrow('refused by the test');
  expect(ran).toEqual(['sql', 'sql again', 'prisma']);
});

it('answers database_busy, writing nothing, when a lock is held past its timeout or no connection is free within maxWait', async () => {
  const { accountId } = await createTestAccount(prisma);
  await sqlTransaction(prisma, (tx) => bump(tx, accountId));
  const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('UPDATE invoice_number_counters SET last_number = last_number WHERE account_id = $1', [
      accountId,
    ]);
    const started = Date.now();
    const locked = await sqlTransaction(prisma, (tx) => bump(tx, accountId)).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isDatabaseBusy(locked)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    await holder.query('ROLLBACK');
    await holder.end();
  }
  expect(await counterOf(accountId)).toBe(1);

  // Every connection of the pool (3) held by transactions that wait: the next cannot start within maxWait (1 s).
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const holding = Array.from({ length: 3 }, () => sqlTransaction(prisma, () => gate));
  const waited = await sqlTransaction(prisma, (tx) => bump(tx, accountId)).then(
    () => null,
    (error: unknown) => error,
  );
  release();
  await Promise.allSettled(holding);
  expect(isDatabaseBusy(waited)).toBe(true);
  expect(await counterOf(accountId)).toBe(1);
});

describe('a connection PostgreSQL drops while it is checked out', () => {
  const BACKEND_PID = { name: 'test_backend_pid_lost', text: 'SELECT pg_backend_pid() AS pid' };

  /** Ends `pid`'s backend from another connection, as a PostgreSQL restart would, and waits until its socket closed. */
  async function terminateBackend(pid: number): Promise<void> {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      while ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount)
        await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      await admin.end();
    }
  }

  it('fails the transaction as database_unavailable, and the process and the pool go on (pg emits an error no one listened to)', async () => {
    const { accountId } = await createTestAccount(prisma);
    const failure = await sqlTransaction(prisma, async (tx) => {
      await bump(tx, accountId);
      const [backend] = await queryRows<{ pid: number }>(tx, BACKEND_PID, []);
      await terminateBackend(backend!.pid);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the socket's end reaches the client
      await bump(tx, accountId);
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect(await counterOf(accountId)).toBeNull(); // nothing of it was committed
    await sqlTransaction(prisma, (tx) => bump(tx, accountId));
    expect(await counterOf(accountId)).toBe(1);
  });

  it('ends a session (withSqlSession) the same way', async () => {
    const failure = await withSqlSession(
      prisma,
      async (session) => {
        const [backend] = await queryRows<{ pid: number }>(session, BACKEND_PID, []);
        await terminateBackend(backend!.pid);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await queryRows(session, BACKEND_PID, []);
      },
      () => Promise.resolve(),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDatabaseUnavailable(failure)).toBe(true);
    const [again] = await queryRows<{ pid: number }>(prisma, BACKEND_PID, []);
    expect(again!.pid).toBeGreaterThan(0);
  });
});
