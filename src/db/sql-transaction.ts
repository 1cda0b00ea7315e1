import type pg from 'pg';
import { escapeLiteral } from 'pg';
import type { Db, Tx } from './prisma';
import { poolOf, transactionOptionsOf } from './prisma';
import { TransactionExpiredError } from './availability';
import type { Statement } from './sql';

/**
 * A transaction on a pg client of the pool under Prisma, for the hot write paths (a subscription's
 * creation, a payment's pending and settled steps: docs/performance.md). Prisma's interactive
 * transaction costs its client engine's work per statement (about 0.4 ms of CPU for a raw statement
 * against 0.1 ms prepared) and per BEGIN and COMMIT. The work receives a `SqlTx`, which runs the named
 * statements of the data-access files (`*.records.ts`) on that client and nothing else: it has no
 * Prisma model, so a model call in the work does not compile. Work that needs a model runs in
 * Prisma's transaction (runTransaction), chosen by its caller before it starts. Bounded as Prisma's
 * are (maxWait for a connection, timeout for the whole), answering 503 database_busy past them
 * (src/db/availability.ts). Nothing but database statements belongs in the work: no calls out while
 * the transaction holds its locks (docs/architecture.md, "Data access").
 */

/** How a SqlTx reaches the database: a pg client (prepared statements) or Prisma's transaction (its raw path). */
interface Runner {
  query(statement: Statement, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number }>;
}

/** One connection that runs named statements only (src/db/sql.ts queryRows takes it): no Prisma model. */
export class SqlConnection {
  constructor(private readonly runner: Runner) {}

  /** Runs `statement` on the connection; its rows and how many rows it wrote. */
  run(statement: Statement, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number }> {
    return this.runner.query(statement, values);
  }
}

/**
 * SQL whose values are written into its text, each one quoted by `sqlLiteral` or `sqlDollarQuoted`: the simple
 * protocol, which sends BEGIN and COMMIT, takes no parameters. Made by a data-access file (`*.records.ts`).
 */
export interface InlineSql {
  text: string;
}

/** The transaction sqlTransaction hands its work. */
export class SqlTx extends SqlConnection {
  /** Hooks run once the transaction has committed (afterCommit). */
  readonly committed: (() => void)[] = [];

  constructor(
    runner: Runner,
    private readonly runAndCommit: (sql: InlineSql) => Promise<unknown[]>,
  ) {
    super(runner);
  }

  /**
   * Runs `sql` as the work's last statement and commits in the same round trip (a 1,000-event batch's insert:
   * the hour rows it updates are locked until COMMIT, which then follows without a wait on the API,
   * docs/performance.md "A batch's p99"); its rows. Nothing runs on the transaction after it.
   */
  commitWith(sql: InlineSql): Promise<unknown[]> {
    return this.runAndCommit(sql);
  }
}

/**
 * Runs `work` on one connection of the pool under `prisma`, each statement committed by itself (no
 * transaction): for session state that must outlive a transaction, such as the webhook relay's
 * advisory locks, held while it calls out. `finish` runs last on the same connection (releasing that
 * state); a connection whose `finish` failed is dropped, not reused.
 */
export async function withSqlSession<T>(
  prisma: Db,
  work: (session: SqlConnection) => Promise<T>,
  finish: (session: SqlConnection) => Promise<unknown>,
): Promise<T> {
  const pool = poolOf(prisma);
  if (!pool) throw new Error('withSqlSession needs a client made by createPrisma (src/db/prisma.ts).');
  const client = await pool.connect();
  const connectionLost = watchConnection(client);
  const session = new SqlConnection({
    async query(statement, values) {
      const result = await client.query({ name: statement.name, text: statement.text, values });
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    },
  });
  let broken: Error | undefined;
  try {
    return await work(session);
  } finally {
    await finish(session).catch((error: Error) => (broken = error));
    client.release(broken ?? connectionLost());
  }
}

/**
 * pg-pool takes its 'error' listener off a client it hands out, and pg emits 'error' on a client whose
 * connection drops (PostgreSQL restarted or unreachable), even while a statement runs: with no listener
 * the process dies of it. The statement in flight fails by itself (database_unavailable, 503); this keeps
 * the process alive and the client out of the pool. Call the answer at release: the lost connection's error.
 */
function watchConnection(client: pg.PoolClient): () => Error | undefined {
  let lost: Error | undefined;
  const listener = (error: Error) => (lost = error);
  client.on('error', listener);
  return () => {
    client.removeListener('error', listener);
    return lost;
  };
}

/**
 * What to do once a transaction has committed (counting money that moved: src/transactions/ledger.ts),
 * per `Tx` of a transaction run by runTransaction below. Dropped when it rolls back, so work that
 * Prisma runs again is counted once.
 */
const commitHooks = new WeakMap<object, (() => void)[]>();

/**
 * Runs `hook` once the transaction of `tx` has committed. A `Tx` of a plain `prisma.$transaction` has no
 * hooks: `hook` runs at once (it may then count work that rolls back after it, which only an error does).
 */
export function afterCommit(tx: Tx | SqlTx, hook: () => void): void {
  const hooks = tx instanceof SqlTx ? tx.committed : commitHooks.get(tx);
  if (hooks) hooks.push(hook);
  else runHooks([hook]);
}

/** A hook that throws (a metric) never fails the committed work it follows. */
function runHooks(hooks: (() => void)[]): void {
  for (const hook of hooks) {
    try {
      hook();
    } catch {
      // the work is committed; what the hook did not do is lost, not the work
    }
  }
}

/** Prisma's interactive transaction, with afterCommit's hooks run once it has committed. */
export async function runTransaction<T>(
  prisma: Db,
  work: (tx: Tx) => Promise<T>,
  options?: { maxWait?: number; timeout?: number },
): Promise<T> {
  const hooks: (() => void)[] = [];
  const result = await prisma.$transaction((tx) => {
    hooks.length = 0; // nothing of a previous run of the work, should Prisma run it again
    commitHooks.set(tx, hooks);
    return work(tx);
  }, options);
  runHooks(hooks);
  return result;
}

async function connect(pool: pg.Pool, maxWaitMs: number): Promise<pg.PoolClient> {
  let timer: NodeJS.Timeout | undefined;
  const connecting = pool.connect();
  const waited = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new TransactionExpiredError()), maxWaitMs)),
  );
  try {
    return await Promise.race([connecting, waited]);
  } catch (error) {
    // A connection that comes after the wait goes back to the pool.
    connecting.then(
      (client) => client.release(),
      () => undefined,
    );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A SqlTx on Prisma's transaction client: for a client createPrisma did not make (it has no pool to take). */
function prismaSqlTx(tx: Tx): SqlTx {
  const runner: Runner = {
    async query(statement, values) {
      const rows = await tx.$queryRawUnsafe<unknown[]>(statement.text, ...values);
      return { rows, rowCount: rows.length };
    },
  };
  // Prisma's transaction commits when the work returns.
  return new SqlTx(runner, async (sql) => (await runner.query({ name: '', text: sql.text }, [])).rows);
}

/** `value` as an SQL string literal (pg's escapeLiteral): for an InlineSql's text. */
export function sqlLiteral(value: string): string {
  return escapeLiteral(value);
}

/**
 * `value` as a dollar-quoted SQL string, taken as it is: for a long text in an InlineSql (a batch's JSON, where
 * escapeLiteral's copy character by character would cost more), under a tag the text does not hold.
 */
export function sqlDollarQuoted(value: string): string {
  let tag = '$q$';
  // The string ends at the tag's first appearance after the opening one: that must be the closing tag itself, not
  // one the value holds or one its last characters make with the tag (a value ending in `$q`).
  while (`${value}${tag}`.indexOf(tag) !== value.length) tag = `${tag.slice(0, -1)}q$`;
  return `${tag}${value}${tag}`;
}

/**
 * Runs `work` in one transaction on a pg client of the pool under `prisma` (Prisma's transaction on a
 * client without one). `bounds` as Prisma's transaction options (the client's unless given). `opening`'s
 * statements are sent with BEGIN, in its round trip, and their rows handed to the work, one array per statement
 * (a 1,000-event batch holds its customers' usage and reads their windows there, docs/performance.md "A batch's
 * p99"); the work's last statement may be sent with COMMIT (SqlTx.commitWith).
 */
export async function sqlTransaction<T>(
  prisma: Db,
  work: (tx: SqlTx, opened: unknown[][]) => Promise<T>,
  bounds?: { maxWait: number; timeout: number },
  opening: InlineSql[] = [],
): Promise<T> {
  const pool = poolOf(prisma);
  if (!pool)
    return runTransaction(
      prisma,
      async (tx) => {
        const sqlTx = prismaSqlTx(tx);
        const opened: unknown[][] = [];
        for (const sql of opening) opened.push((await sqlTx.run({ name: '', text: sql.text }, [])).rows);
        const result = await work(sqlTx, opened);
        afterCommit(tx, () => runHooks(sqlTx.committed));
        return result;
      },
      bounds,
    );
  const { maxWait, timeout } = bounds ?? transactionOptionsOf(prisma);
  const client = await connect(pool, maxWait);
  const connectionLost = watchConnection(client);
  let expired = false;
  const expiry = setTimeout(() => (expired = true), timeout);
  // Once committed by the work's last statement (commitWith), the transaction takes no other statement.
  let committed = false;
  const tx = new SqlTx(
    {
      async query(statement, values) {
        if (committed) throw new Error('The transaction has committed: commitWith runs the last statement.');
        if (expired) throw new TransactionExpiredError();
        const result = await client.query({ name: statement.name, text: statement.text, values });
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      },
    },
    async (sql) => {
      if (committed) throw new Error('The transaction has committed: commitWith runs the last statement.');
      if (expired) throw new TransactionExpiredError();
      // A statement that fails skips the COMMIT after it: the transaction is rolled back below.
      const results = (await client.query(`${sql.text}; COMMIT`)) as unknown as pg.QueryResult[];
      committed = true;
      return results[0]?.rows ?? [];
    },
  );
  // A client whose ROLLBACK failed is dropped (release with the error), not reused.
  let broken: Error | undefined;
  try {
    // A statement waiting on a lock past the transaction's timeout is cancelled (57014: database_busy).
    const begun = [`BEGIN; SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeout))}`];
    const results: unknown = await client.query([...begun, ...opening.map((sql) => sql.text)].join('; '));
    // One result per statement: BEGIN's and SET's, then the opening's, one each.
    const opened = (results as pg.QueryResult[]).slice(2).map((result) => result.rows);
    const result = await work(tx, opened);
    if (!committed) {
      if (expired) throw new TransactionExpiredError();
      await client.query('COMMIT');
    }
    runHooks(tx.committed);
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackFailed: Error) => (broken = rollbackFailed));
    throw error;
  } finally {
    clearTimeout(expiry);
    client.release(broken ?? connectionLost());
  }
}
