import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';

export type Db = PrismaClient;
/** A Prisma transaction client: what services receive when they must write inside a transaction. */
export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/** The pg pool under each client createPrisma made: hot reads query it directly (src/db/sql.ts). */
const pools = new WeakMap<PrismaClient, pg.Pool>();
/** The bounds of its interactive transactions, which sqlTransaction (src/db/sql-transaction.ts) keeps too. */
const transactionBounds = new WeakMap<PrismaClient, typeof TRANSACTION_OPTIONS>();

/**
 * Interactive transactions may wait 5 s for a connection and run 15 s (Prisma's defaults: 2 s and
 * 5 s). Under load on a small machine concurrent writers of one account queue on its counters' row
 * locks (the invoice number), and 5 s was measured to expire: 20 concurrent charged subscription
 * creations on two cores. Past these bounds the API answers 503 database_busy (src/db/availability.ts).
 */
export const TRANSACTION_OPTIONS = { maxWait: 5_000, timeout: 15_000 };

export function createPrisma(
  databaseUrl: string,
  poolSize = 10,
  transactionOptions = TRANSACTION_OPTIONS,
): PrismaClient {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  // An idle connection the server drops (restart, outage) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }), transactionOptions });
  pools.set(prisma, pool);
  transactionBounds.set(prisma, transactionOptions);
  return prisma;
}

export function transactionOptionsOf(prisma: PrismaClient): typeof TRANSACTION_OPTIONS {
  return transactionBounds.get(prisma) ?? TRANSACTION_OPTIONS;
}

export function poolOf(prisma: PrismaClient): pg.Pool | undefined {
  return pools.get(prisma);
}
