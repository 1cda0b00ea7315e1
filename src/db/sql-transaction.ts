import type pg from 'pg';
import type { Db, Tx } from './prisma';
import { poolOf, transactionOptionsOf } from './prisma';
import { TransactionExpiredError } from './availability';

/**
 * A transaction on a pg client of the pool under Prisma, for the hot write paths (a subscription's
 * creation, a payment's pending and settled steps: docs/performance.md). Prisma's interactive
 * transaction costs its client engine's work per statement (about 0.4 ms of CPU for a raw statement
 * against 0.1 ms prepared) and per BEGIN and COMMIT. The work receives a `Tx` that runs raw SQL
 * (`$executeRaw`, `$queryRaw` and their Unsafe forms, rows as pg reads them) and queryRows' prepared
 * statements on that client; a model call (`tx.invoice.update(...)`) is not served: the transaction
 * rolls back and the same work runs again in Prisma's interactive transaction, so rare branches (a
 * price billed the first time, an invoice with nothing due) keep their Prisma code. The work must
 * therefore be safe to run twice when its first run is rolled back: only database writes, no calls out.
 * Bounded as Prisma's are (maxWait for a connection, timeout for the whole), answering 503
 * database_busy past them (src/db/availability.ts).
 */

/** The work used something only Prisma's transaction client has. */
class ModelCallInSqlTransaction extends Error {
  constructor(readonly property: string) {
    super(`tx.${property} is not served by sqlTransaction; the work runs in Prisma's transaction instead`);
  }
}

const clients = new WeakMap<object, SqlTx>();

/**
 * What to do once a transaction has committed (counting money that moved: src/transactions/ledger.ts),
 * per `Tx` of a transaction run by sqlTransaction or runTransaction below. Dropped when it rolls back, so
 * work that sqlTransaction runs again in Prisma's transaction is counted once.
 */
const commitHooks = new WeakMap<object, (() => void)[]>();

/**
 * Runs `hook` once the transaction of `tx` has committed. A `Tx` of a plain `prisma.$transaction` has no
 * hooks: `hook` runs at once (it may then count work that rolls back after it, which only an error does).
 */
export function afterCommit(tx: Tx, hook: () => void): void {
  const hooks = commitHooks.get(tx);
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

interface SqlTx {
  client: pg.PoolClient;
  /** Set once the transaction ran past its timeout: every further statement fails. */
  expired: boolean;
  /** Set by a model call: the work runs again in Prisma's transaction, even if it caught the error. */
  needsPrisma: boolean;
}

/** The pg client of a `Tx` that sqlTransaction made, for queryRows' prepared statements; undefined otherwise. */
export function sqlClientOf(tx: unknown): pg.PoolClient | undefined {
  const state = typeof tx === 'object' && tx !== null ? clients.get(tx) : undefined;
  if (!state) return undefined;
  if (state.expired) throw new TransactionExpiredError();
  return state.client;
}

/** `strings` and `values` of a tagged template as one statement with $1.. placeholders. */
function templateText(strings: TemplateStringsArray, values: unknown[]): { text: string; values: unknown[] } {
  return { text: strings.reduce((text, part, index) => (index === 0 ? part : `${text}$${index}${part}`), ''), values };
}

function transactionClient(state: SqlTx): Tx {
  const run = async (text: string, values: unknown[]) => {
    if (state.expired) throw new TransactionExpiredError();
    return state.client.query(text, values);
  };
  const raw = {
    $executeRaw: async (strings: TemplateStringsArray, ...values: unknown[]) => {
      const statement = templateText(strings, values);
      return (await run(statement.text, statement.values)).rowCount ?? 0;
    },
    $executeRawUnsafe: async (text: string, ...values: unknown[]) => (await run(text, values)).rowCount ?? 0,
    $queryRaw: async (strings: TemplateStringsArray, ...values: unknown[]) => {
      const statement = templateText(strings, values);
      return (await run(statement.text, statement.values)).rows;
    },
    $queryRawUnsafe: async (text: string, ...values: unknown[]) => (await run(text, values)).rows,
  };
  const tx = new Proxy(raw, {
    get(target, property) {
      if (typeof property === 'string' && property in target) return target[property as keyof typeof target];
      // `then`: the Tx is not a promise (await and Promise.resolve look for it).
      if (property === 'then' || typeof property === 'symbol') return undefined;
      state.needsPrisma = true;
      throw new ModelCallInSqlTransaction(property);
    },
  }) as unknown as Tx;
  clients.set(tx, state);
  return tx;
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

/**
 * Runs `work` in one transaction: on a pg client when it can, else (or when the work needs a model
 * call) in Prisma's. `bounds` as Prisma's transaction options (the client's unless given).
 */
export async function sqlTransaction<T>(
  prisma: Db,
  work: (tx: Tx) => Promise<T>,
  bounds?: { maxWait: number; timeout: number },
): Promise<T> {
  const pool = poolOf(prisma);
  if (!pool) return runTransaction(prisma, work, bounds);
  const { maxWait, timeout } = bounds ?? transactionOptionsOf(prisma);
  const client = await connect(pool, maxWait);
  const state: SqlTx = { client, expired: false, needsPrisma: false };
  const expiry = setTimeout(() => (state.expired = true), timeout);
  let released = false;
  // A client whose ROLLBACK failed is dropped (release with the error), not reused.
  const release = (broken?: Error) => {
    if (released) return;
    released = true;
    client.release(broken);
  };
  try {
    // A statement waiting on a lock past the transaction's timeout is cancelled (57014: database_busy).
    await client.query(`BEGIN; SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeout))}`);
    const tx = transactionClient(state);
    const hooks: (() => void)[] = [];
    commitHooks.set(tx, hooks);
    const result = await work(tx);
    if (state.needsPrisma) throw new ModelCallInSqlTransaction('(a model, its error caught by the work)');
    if (state.expired) throw new TransactionExpiredError();
    await client.query('COMMIT');
    runHooks(hooks);
    return result;
  } catch (error) {
    const rolledBack = await client.query('ROLLBACK').then(
      () => true,
      (rollbackFailed: Error) => (release(rollbackFailed), false),
    );
    if (!state.needsPrisma || !rolledBack) throw error;
    // Released before Prisma takes a connection of the same pool.
    clearTimeout(expiry);
    release();
    return runTransaction(prisma, work, bounds);
  } finally {
    clearTimeout(expiry);
    release();
  }
}
