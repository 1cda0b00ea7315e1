import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';

export type Db = PrismaClient;
/** A Prisma transaction client: what services receive when they must write inside a transaction. */
export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/** The pg pool under each client createPrisma made: hot reads query it directly (src/db/sql.ts). */
const pools = new WeakMap<PrismaClient, pg.Pool>();

export function createPrisma(databaseUrl: string, poolSize = 10): PrismaClient {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  // An idle connection the server drops (restart, outage) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(prisma, pool);
  return prisma;
}

export function poolOf(prisma: PrismaClient): pg.Pool | undefined {
  return pools.get(prisma);
}
