// `npm run bench`: the API against a bare baseline measured in the same run on the same database.
// Everything runs on loopback; each load is bounded in time and stops by itself.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { projectRoot, paths } from '../src/config';
import { createAccount } from '../src/accounts/account.service';
import { migrate } from '../src/db/migrator';
import { createPrisma } from '../src/db/prisma';
import { startEmbeddedPostgres } from '../src/runtime/embedded-postgres';
import { startTemporalDevServer } from '../src/runtime/temporal-dev-server';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function startServer(mode: 'api' | 'baseline', env: NodeJS.ProcessEnv): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(path.join(projectRoot, 'node_modules', '.bin', 'tsx'), [path.join(__dirname, 'server-process.ts'), mode], {
    env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk) => resolve(JSON.parse(String(chunk)).port));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return { port, child };
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

async function load(url: string, headers: Record<string, string>): Promise<LoadResult> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 2 }); // warm-up: JIT, pools, caches
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

function ratio(a: number, b: number): string {
  return b === 0 ? 'n/a' : (a / b).toFixed(2);
}

async function main(): Promise<void> {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-bench-'));
  fs.chmodSync(runDir, 0o777);
  const database = await startEmbeddedPostgres({ dataDir: path.join(runDir, 'postgres'), port: await freePort(), database: 'bench' });
  const temporal = await startTemporalDevServer({ dataDir: runDir, port: await freePort(), uiPort: await freePort(), namespace: 'default' });
  const children: ChildProcess[] = [];
  try {
    await migrate(database.url, paths.migrations);
    const prisma = createPrisma(database.url, 2);
    const account = await createAccount(prisma, { name: 'Bench', role: 'developer' });
    const customer = await prisma.customer.create({
      data: { id: 'cus_bench0000000000000000001', accountId: account.account_id, name: 'Bench Customer', email: 'bench@example.com' },
    });
    await prisma.$disconnect();

    const env = { DATABASE_URL: database.url, TEMPORAL_ADDRESS: temporal.address, BENCH_ACCOUNT_ID: account.account_id };
    const api = await startServer('api', env);
    const baseline = await startServer('baseline', env);
    children.push(api.child, baseline.child);

    console.log(`GET /customers/{id}: ${CONNECTIONS} connections, ${DURATION_S} s each, after a 2 s warm-up`);
    const baselineResult = await load(`http://127.0.0.1:${baseline.port}/customers/${customer.id}`, {});
    const apiResult = await load(`http://127.0.0.1:${api.port}/customers/${customer.id}`, { 'cc-api-key': account.api_key });
    for (const [name, result] of [['baseline', baselineResult], ['api', apiResult]] as const) {
      if (result.errors || result.non2xx) throw new Error(`${name}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
    }
    console.table({
      baseline: { 'req/s': Math.round(baselineResult.requestsPerSecond), 'p50 ms': baselineResult.p50Ms, 'p99 ms': baselineResult.p99Ms },
      api: { 'req/s': Math.round(apiResult.requestsPerSecond), 'p50 ms': apiResult.p50Ms, 'p99 ms': apiResult.p99Ms },
    });
    console.log(
      `api/baseline: throughput ${ratio(apiResult.requestsPerSecond, baselineResult.requestsPerSecond)}x, ` +
        `p99 latency ${ratio(apiResult.p99Ms, baselineResult.p99Ms)}x`,
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await temporal.stop();
    await database.stop();
    fs.rmSync(runDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
