import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { projectRoot } from '../src/config';
import { TSX_NODE_ARGS } from '../src/runtime/processes';
import { createAccount } from '../src/accounts/account.service';
import { descendantsCpuMs, ratio, roundTo, type BenchContext, type Figures } from './support';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

export async function startServer(
  mode: 'api' | 'baseline',
  env: NodeJS.ProcessEnv,
): Promise<{ port: number; child: ChildProcess }> {
  // BENCH_CPU_PROFILE_DIR: the server writes its V8 CPU profile there when it exits (SIGTERM), as spawnTsx's children do.
  const profile = process.env.BENCH_CPU_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE_DIR}`]
    : [];
  const child = spawn(
    process.execPath,
    [...profile, ...TSX_NODE_ARGS, path.join(__dirname, 'server-process.ts'), mode],
    {
      cwd: projectRoot,
      env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk) => resolve(JSON.parse(String(chunk)).port));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return { port, child };
}

/** Slices each load is cut into, alternating between the two servers, so that a change in the machine's load meets both alike. */
const SLICES = 4;

async function load(url: string, headers: Record<string, string>, seconds: number) {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: seconds });
  if (result.errors || result.non2xx)
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { requests: result.requests.total, p50Ms: result.latency.p50, p99Ms: result.latency.p99 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

type Load = {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU ms a request cost the server's process and PostgreSQL, over its own slices: steadier than a rate on a busy machine. */
  serverCpuMs: number;
  postgresCpuMs: number;
};

type Target = { url: string; headers: Record<string, string>; pid: number | undefined };

/** Both servers, `SLICES` alternating slices each after a 2 s warm-up: requests/s over all slices, median p50 and p99. */
async function alternate(targets: Target[]): Promise<Load[]> {
  for (const { url, headers } of targets) await load(url, headers, 2); // warm-up: JIT, pools, caches
  const slices = targets.map(() => [] as Awaited<ReturnType<typeof load>>[]);
  const cpu = targets.map(() => ({ server: 0, postgres: 0 }));
  for (let slice = 0; slice < SLICES; slice++) {
    for (const [index, { url, headers, pid }] of targets.entries()) {
      const before = descendantsCpuMs({ server: pid });
      slices[index]!.push(await load(url, headers, DURATION_S / SLICES));
      const after = descendantsCpuMs({ server: pid });
      cpu[index]!.server += (after.server ?? 0) - (before.server ?? 0);
      cpu[index]!.postgres += (after.postgres ?? 0) - (before.postgres ?? 0);
    }
  }
  return slices.map((results, index) => {
    const requests = results.reduce((sum, result) => sum + result.requests, 0);
    return {
      requestsPerSecond: requests / DURATION_S,
      p50Ms: median(results.map((result) => result.p50Ms)),
      p99Ms: median(results.map((result) => result.p99Ms)),
      serverCpuMs: cpu[index]!.server / requests,
      postgresCpuMs: cpu[index]!.postgres / requests,
    };
  });
}

/**
 * GET /customers/{id} through the API against a baseline measured in the same run: a bare Express
 * handler doing the same single-row query with `pg` on the same database. Each server runs in a
 * process of its own so the load generator does not share its CPU time.
 */
export async function benchCustomers(ctx: BenchContext): Promise<Figures> {
  const account = await createAccount(ctx.prisma, { name: 'Bench', role: 'developer' });
  const customer = await ctx.prisma.customer.create({
    data: {
      id: 'cus_bench0000000000000000001',
      accountId: account.account_id,
      name: 'Bench Customer',
      email: 'bench@example.com',
    },
  });
  const env = {
    DATABASE_URL: ctx.databaseUrl,
    TEMPORAL_ADDRESS: ctx.temporalAddress,
    BENCH_ACCOUNT_ID: account.account_id,
  };
  const children: ChildProcess[] = [];
  try {
    const api = await startServer('api', env);
    children.push(api.child);
    const baseline = await startServer('baseline', env);
    children.push(baseline.child);

    console.log(
      `\nGET /customers/{id}: ${CONNECTIONS} connections, ${DURATION_S} s each in ${SLICES} alternating slices, after a 2 s warm-up`,
    );
    const [base, ours] = (await alternate([
      { url: `http://127.0.0.1:${baseline.port}/customers/${customer.id}`, headers: {}, pid: baseline.child.pid },
      {
        url: `http://127.0.0.1:${api.port}/customers/${customer.id}`,
        headers: { 'cc-api-key': account.api_key },
        pid: api.child.pid,
      },
    ])) as [Load, Load];
    const row = (figure: Load) => ({
      'req/s': Math.round(figure.requestsPerSecond),
      'p50 ms': figure.p50Ms,
      'p99 ms': figure.p99Ms,
      'server CPU ms/request': roundTo(figure.serverCpuMs, 3),
      'PostgreSQL CPU ms/request': roundTo(figure.postgresCpuMs, 3),
    });
    console.table({ baseline: row(base), api: row(ours) });
    console.log(
      `customers api/baseline: throughput ${ratio(ours.requestsPerSecond, base.requestsPerSecond)}, p99 latency ${ratio(ours.p99Ms, base.p99Ms)}`,
    );
    return {
      read_ratio: roundTo(ours.requestsPerSecond / base.requestsPerSecond),
      read_p99_ratio: roundTo(ours.p99Ms / base.p99Ms),
      read_server_cpu_ms: roundTo(ours.serverCpuMs, 3),
      read_server_cpu_ms_baseline: roundTo(base.serverCpuMs, 3),
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}
