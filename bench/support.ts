import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { Connection } from '@temporalio/client';
import { paths } from '../src/config';
import { migrate } from '../src/db/migrator';
import { writeWorkflowBundle } from '../src/temporal/bundle';
import { createPrisma, type Db } from '../src/db/prisma';
import { startEmbeddedPostgres } from '../src/runtime/embedded-postgres';
import { startTemporalDevServer } from '../src/runtime/temporal-dev-server';
import { freeTemporalServerPort, startTemporalServer } from '../src/runtime/temporal-server';
import { temporalClient } from '../src/temporal/client';

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
  /** The workflow bundle workers load, built once per run as the app image has it (npm run build:workflows). */
  workflowBundle: string;
}

export async function startBenchServices(engine: Engine): Promise<BenchContext & { stop(): Promise<void> }> {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-bench-'));
  fs.chmodSync(runDir, 0o777);
  const database = await startEmbeddedPostgres({
    dataDir: path.join(runDir, 'postgres'),
    port: await freePort(),
    database: 'bench',
    // BENCH_PG_STATEMENTS=1: every database's statements counted (bench/pg-statements.ts), Temporal's too.
    settings: process.env.BENCH_PG_STATEMENTS
      ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all', 'pg_stat_statements.max=5000']
      : [],
  });
  const temporalDbUrl = new URL(database.url);
  temporalDbUrl.pathname = '/temporal';
  const temporal =
    engine === 'dev'
      ? await startTemporalDevServer({
          dataDir: runDir,
          port: await freePort(),
          uiPort: await freePort(),
          namespace: 'default',
        })
      : await startTemporalServer({
          databaseUrl: temporalDbUrl.toString(),
          port: await freeTemporalServerPort(),
          uiPort: await freePort(),
          namespace: 'default',
          logFile: path.join(runDir, 'temporal-server.log'),
        });
  await migrate(database.url, paths.migrations);
  const workflowBundle = path.join(runDir, 'workflow-bundle.js');
  await writeWorkflowBundle(workflowBundle);
  const prisma = createPrisma(database.url, 10);
  return {
    engine,
    databaseUrl: database.url,
    temporalAddress: temporal.address,
    prisma,
    workflowBundle,
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

/** A figure for the JSON line: `digits` decimals. */
export function roundTo(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export function ratio(a: number, b: number): string {
  return b === 0 ? 'n/a' : `${(a / b).toFixed(2)}x`;
}

/** What a section measured, by the keys `npm run bench -- --json` prints. */
export type Figures = Record<string, number>;

export interface LaneResult {
  perSecond: number;
  /** Each job's duration in ms, sorted. */
  durations: number[];
  p50: number;
  p99: number;
}

/** `total` jobs over `lanes` concurrent lanes: each job's duration and the jobs per second. */
export async function runLanes(
  total: number,
  lanes: number,
  job: (index: number) => Promise<void>,
): Promise<LaneResult> {
  const durations: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < total) {
        const index = next++;
        const jobStarted = performance.now();
        await job(index);
        durations.push(performance.now() - jobStarted);
      }
    }),
  );
  const perSecond = total / ((performance.now() - started) / 1000);
  durations.sort((a, b) => a - b);
  return { perSecond, durations, p50: percentile(durations, 50), p99: percentile(durations, 99) };
}

/** Concurrent clients of the bare-start baseline (and of the API loads measured against it). */
export const BARE_START_LANES = 10;

/**
 * The Temporal baseline every workflow figure is divided by: `count` bare workflow starts from
 * BARE_START_LANES concurrent clients on a task queue no worker polls (after a warm-up of 20).
 */
export function bareWorkflowStarts(temporalAddress: string, count: number): Promise<LaneResult> {
  return workflowStarts(temporalAddress, count, { workflowType: 'benchIdleWorkflow', taskQueue: 'bench-no-worker' });
}

/**
 * `count` starts of `workflowType` on `taskQueue` from BARE_START_LANES concurrent clients (after a warm-up
 * of 20), with the service's data converter; `args(index)` each start's input.
 */
export async function workflowStarts(
  temporalAddress: string,
  count: number,
  { workflowType, taskQueue, args }: { workflowType: string; taskQueue: string; args?: (index: number) => unknown[] },
): Promise<LaneResult> {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const client = temporalClient(connection);
    const run = crypto.randomUUID();
    const start = (index: number) =>
      client.workflow
        .start(workflowType, {
          taskQueue,
          workflowId: `bench-${workflowType}-${run}-${index}`,
          args: args?.(index) ?? [],
        })
        .then(() => undefined);
    await runLanes(20, BARE_START_LANES, (index) => start(count + index));
    return await runLanes(count, BARE_START_LANES, start);
  } finally {
    await connection.close();
  }
}

/** CPU ms (user + system) of every process this bench started, summed by what it is (linux /proc). */
export function descendantsCpuMs(named: Record<string, number | undefined> = {}): Record<string, number> {
  const ticksPerMs = 100 / 1000; // USER_HZ, 100 on linux
  const processes = new Map<number, { parent: number; label: string; ticks: number }>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name sits between parentheses and may hold spaces: fields after it start at ')'.
      const close = stat.lastIndexOf(')');
      const command = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      processes.set(Number(entry), { parent: Number(fields[1]), label: command, ticks });
    } catch {
      // gone between the listing and the read
    }
  }
  const byPid = new Map(Object.entries(named).flatMap(([label, pid]) => (pid ? [[pid, label] as const] : [])));
  const labelOf = (pid: number): string | null => {
    for (let at: number | undefined = pid, depth = 0; at && depth < 20; depth += 1) {
      if (byPid.has(at)) return byPid.get(at)!;
      if (at === process.pid) {
        const command = processes.get(pid)!.label;
        if (command.startsWith('postgres')) return 'postgres';
        if (command.startsWith('temporal')) return 'temporal';
        return pid === process.pid ? 'bench' : `other (${command})`;
      }
      at = processes.get(at)?.parent;
    }
    return null;
  };
  const totals: Record<string, number> = {};
  for (const [pid, { ticks }] of processes) {
    const label = labelOf(pid);
    if (label) totals[label] = (totals[label] ?? 0) + ticks / ticksPerMs;
  }
  return totals;
}

/** What each labelled process spent per job between two descendantsCpuMs readings. */
export function cpuPerJob(before: Record<string, number>, after: Record<string, number>, jobs: number): string {
  return Object.keys(after)
    .filter((label) => (after[label] ?? 0) - (before[label] ?? 0) > 0)
    .sort()
    .map((label) => `${label} ${((after[label]! - (before[label] ?? 0)) / jobs).toFixed(1)}`)
    .concat(`in all ${cpuInAllPerJob(before, after, jobs).toFixed(1)}`)
    .join(', ');
}

/**
 * The CPU ms, by what each process is (descendantsCpuMs), that `burst` cost, its work left behind included: a
 * workflow's first task runs after its start was answered, so the count goes on (at least `minMs`) until the
 * processes spend under `idleShare` of one core over `windowMs` (at most `maxMs`) (docs/performance.md, "What a
 * burst leaves behind").
 */
export async function cpuOfBurst<T>(
  named: Record<string, number | undefined>,
  burst: () => Promise<T>,
  { minMs = 1_000, windowMs = 500, idleShare = 0.2, maxMs = 30_000 } = {},
): Promise<{ result: T; cpuMs: Record<string, number> }> {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const before = descendantsCpuMs(named);
  const result = await burst();
  await sleep(minMs);
  for (const until = Date.now() + maxMs; Date.now() < until;) {
    const windowStart = descendantsCpuMs(named);
    await sleep(windowMs);
    if (cpuInAllPerJob(windowStart, descendantsCpuMs(named), 1) < idleShare * windowMs) break;
  }
  const after = descendantsCpuMs(named);
  const cpuMs: Record<string, number> = {};
  for (const label of Object.keys(after)) cpuMs[label] = Math.max(0, after[label]! - (before[label] ?? 0));
  return { result, cpuMs };
}

/** CPU ms per job of every process descendantsCpuMs counted, summed. */
export function cpuInAllPerJob(before: Record<string, number>, after: Record<string, number>, jobs: number): number {
  return Object.keys(after).reduce((sum, label) => sum + Math.max(0, after[label]! - (before[label] ?? 0)), 0) / jobs;
}
