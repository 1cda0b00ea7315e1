import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { paths } from '../src/config';
import { migrate } from '../src/db/migrator';
import { createPrisma, type Db } from '../src/db/prisma';
import { startEmbeddedPostgres } from '../src/runtime/embedded-postgres';
import { startTemporalDevServer } from '../src/runtime/temporal-dev-server';
import { freeTemporalServerPort, startTemporalServer } from '../src/runtime/temporal-server';

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export type Engine = 'dev' | 'server';

/** What every bench section gets: its own PostgreSQL (migrated) and Temporal server of the engine named. */
export interface BenchContext {
  engine: Engine;
  databaseUrl: string;
  temporalAddress: string;
  prisma: Db;
}

export async function startBenchServices(engine: Engine): Promise<BenchContext & { stop(): Promise<void> }> {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-bench-'));
  fs.chmodSync(runDir, 0o777);
  const database = await startEmbeddedPostgres({ dataDir: path.join(runDir, 'postgres'), port: await freePort(), database: 'bench' });
  const temporalDbUrl = new URL(database.url);
  temporalDbUrl.pathname = '/temporal';
  const temporal =
    engine === 'dev'
      ? await startTemporalDevServer({ dataDir: runDir, port: await freePort(), uiPort: await freePort(), namespace: 'default' })
      : await startTemporalServer({
          databaseUrl: temporalDbUrl.toString(),
          port: await freeTemporalServerPort(),
          uiPort: await freePort(),
          namespace: 'default',
          logFile: path.join(runDir, 'temporal-server.log'),
        });
  await migrate(database.url, paths.migrations);
  const prisma = createPrisma(database.url, 10);
  return {
    engine,
    databaseUrl: database.url,
    temporalAddress: temporal.address,
    prisma,
    async stop() {
      await prisma.$disconnect();
      await temporal.stop();
      await database.stop();
      fs.rmSync(runDir, { recursive: true, force: true });
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function ratio(a: number, b: number): string {
  return b === 0 ? 'n/a' : `${(a / b).toFixed(2)}x`;
}
