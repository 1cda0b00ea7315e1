import { Connection } from '@temporalio/client';
import { temporalClient } from '../../src/temporal/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../../src/config';
import { apiClient } from '../support/harness';
import { cardBody } from '../support/payments';
import { freePortBlock } from '../../src/runtime/ports';
import { recurringPrice } from '../support/subscriptions';

// `npm start` (src/cli/dev.ts) stopped as a process manager stops it (SIGTERM to the top process), as its
// own node process is stopped, and as a terminal's Ctrl-C stops it (SIGINT to the whole foreground
// group): every process it started is gone, stopped in order (docs/operations.md, "Stopping").

const STARTED = '[start] Ctrl-C stops everything.';

interface Dev {
  npm: ChildProcess;
  output: () => string;
  baseUrl: string;
  exited: Promise<void>;
}

let dataDir: string;
let ports: { api: number; temporal: number; ui: number; postgres: number };
let apiKey: string | undefined;
const started: Dev[] = [];
const seenPids = new Set<number>();

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-dev-'));
  fs.chmodSync(dataDir, 0o777);
});

/**
 * Ports for one `npm start`, chosen as it starts: the API's, the worker's metrics (PORT + 1), Temporal's, its
 * UI's and PostgreSQL's. Outside the system's ephemeral range, where another test file's connections
 * would take them while the stack starts.
 */
async function choosePorts(): Promise<void> {
  const api = await freePortBlock([0, 1, 2, 3, 4]);
  ports = { api, temporal: api + 2, ui: api + 3, postgres: api + 4 };
}

afterEach(() => {
  // Whatever a failed test left running.
  for (const dev of started.splice(0)) if (dev.npm.exitCode === null) killQuietly(-dev.npm.pid!);
  for (const pid of seenPids) if (alive(pid)) killQuietly(pid);
  seenPids.clear();
});

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** pid -> [parent pid, state] of every process, from /proc. */
function processTable(): Map<number, { ppid: number; state: string }> {
  const table = new Map<number, { ppid: number; state: string }>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry), { state: fields[0]!, ppid: Number(fields[1]) });
    } catch {
      // exited meanwhile
    }
  }
  return table;
}

function descendants(root: number): number[] {
  const table = processTable();
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [pid, { ppid }] of table) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

function alive(pid: number): boolean {
  const entry = processTable().get(pid);
  return entry !== undefined && entry.state !== 'Z';
}

function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

async function startDev(): Promise<Dev> {
  await choosePorts();
  const npm = spawn('npm', ['start'], {
    cwd: projectRoot,
    // A process group of its own, as a terminal's foreground job is.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(ports.api),
      TEMPORAL_PORT: String(ports.temporal),
      TEMPORAL_UI_PORT: String(ports.ui),
      EMBEDDED_PG_PORT: String(ports.postgres),
      DATABASE_URL: '',
      TEMPORAL_ADDRESS: '',
      WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE,
      LOG_LEVEL: 'warn',
    },
  });
  let output = '';
  npm.stdout!.on('data', (chunk) => (output += String(chunk)));
  npm.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  const dev: Dev = { npm, output: () => output, baseUrl: `http://127.0.0.1:${ports.api}`, exited };
  started.push(dev);
  const deadline = Date.now() + 120_000;
  while (!output.includes(STARTED)) {
    if (npm.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  apiKey ??= /API key \(shown once\): (sk_test_\S+)/.exec(output)?.[1];
  for (const pid of descendants(npm.pid!)) seenPids.add(pid);
  return dev;
}

/** Every process `npm start` started, the PostgreSQL backends included (the postmaster's children). */
function serviceProcesses(dev: Dev): number[] {
  const pids = descendants(dev.npm.pid!);
  for (const pid of pids) seenPids.add(pid);
  return pids;
}

async function expectAllGone(dev: Dev, pids: number[], withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let left = [dev.npm.pid!, ...pids].filter(alive);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    left = left.filter(alive);
  }
  expect(left.map((pid) => `${pid} ${commandLine(pid)}`)).toEqual([]);
}

/** The supervisor's lines about stopping, in the order it wrote them. */
function stopLines(output: string): string[] {
  const lines = output.split('\n').filter((line) => line.startsWith('[start] '));
  return lines.slice(lines.indexOf('[start] stopping...'));
}

const ORDER = [
  '[start] stopping...',
  '[start] stopping the API (requests in flight finish)',
  '[start] api exited (code 0)',
  '[start] stopping the workers',
  '[start] worker exited (code 0)',
  '[start] stopping Temporal',
  '[start] stopping PostgreSQL',
  '[start] stopped',
];

describe('npm start stops every process it started', () => {
  it('SIGTERM to the npm start process: the API answers its requests in flight, then the workers, Temporal and PostgreSQL stop; nothing is left', async () => {
    const dev = await startDev();
    const pids = serviceProcesses(dev);
    // PostgreSQL (its postmaster and background processes), Temporal, the API and the worker.
    expect(pids.filter((pid) => commandLine(pid).includes('src/cli/api.ts'))).toHaveLength(1);
    expect(pids.filter((pid) => commandLine(pid).includes('src/cli/worker.ts'))).toHaveLength(1);
    expect(pids.filter((pid) => commandLine(pid).includes('server start-dev'))).toHaveLength(1);
    expect(pids.filter((pid) => commandLine(pid).includes('checkpointer'))).toHaveLength(1);

    expect(apiKey).toBeDefined();
    const api = apiClient(dev.baseUrl, apiKey);
    const customer = (await api.post('/customers', { name: 'Ada', email: 'ada@example.com' })).body;
    expect(
      (await api.post('/payment-methods', { ...cardBody('4242424242424242'), customer: customer.id })).status,
    ).toBe(201);
    const price = await recurringPrice(api);
    const subscription = await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: Math.floor(Date.now() / 1000),
    });
    expect(subscription.status).toBe(201);
    // The worker serves its metrics, by default on PORT + 1 (docs/operations.md, "Metrics and alerts"): the SDK's and the service's.
    let workerMetrics = '';
    // A worker starting on a loaded machine (CI runs two test files at once) can take tens of seconds.
    for (
      const deadline = Date.now() + 60_000;
      !/^temporal_worker_task_slots_available/m.test(workerMetrics) && Date.now() < deadline;
    ) {
      workerMetrics = await fetch(`http://127.0.0.1:${ports.api + 1}/metrics`).then(
        (response) => response.text(),
        () => '',
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (!/^temporal_worker_task_slots_available/m.test(workerMetrics))
      throw new Error(`the worker served no SDK metrics within 60 s; npm start printed:\n${dev.output()}`);
    expect(workerMetrics).toContain('# TYPE billing_charges_total counter');
    expect(workerMetrics).toMatch(/^billing_worker_sdk_metrics_up 1$/m);
    // The worker made the retention sweep's schedule on the dev engine too (docs/decisions.md §24).
    const connection = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
    try {
      const schedule = temporalClient(connection, 'default').schedule.getHandle('retention-sweep');
      let action: unknown;
      for (const deadline = Date.now() + 15_000; !action && Date.now() < deadline;) {
        action = await schedule.describe().then(
          (described) => described.action,
          () => undefined,
        );
        if (!action) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(action).toMatchObject({ workflowType: 'retentionSweep', taskQueue: 'billing' });
    } finally {
      await connection.close();
    }

    // A pause in flight when the signal comes: it needs a worker to be carried out.
    const pauseStarted = Date.now();
    const pause = api.post(`/subscriptions/${subscription.body.id}/pause`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    process.kill(dev.npm.pid!, 'SIGTERM');
    const paused = await pause;
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('paused');
    expect(Date.now() - pauseStarted).toBeLessThan(10_000);

    await dev.exited;
    await expectAllGone(dev, pids, 30_000);
    expect(stopLines(dev.output())).toEqual(ORDER);
  });

  it('SIGTERM to the dev.ts node process itself stops everything', async () => {
    const dev = await startDev();
    const pids = serviceProcesses(dev);
    const supervisor = pids.find((pid) => commandLine(pid).includes('src/cli/dev.ts'));
    expect(supervisor).toBeDefined();
    process.kill(supervisor!, 'SIGTERM');
    await dev.exited;
    await expectAllGone(dev, pids, 30_000);
    expect(stopLines(dev.output())).toEqual(ORDER);
  });

  it('SIGKILL of the dev.ts node process: every child it started gets its parent-death signal and stops; nothing is left', async () => {
    const dev = await startDev();
    const pids = serviceProcesses(dev);
    const supervisor = pids.find((pid) => commandLine(pid).includes('src/cli/dev.ts'));
    expect(supervisor).toBeDefined();
    process.kill(supervisor!, 'SIGKILL');
    await dev.exited;
    await expectAllGone(dev, pids, 30_000);
  });

  it('Ctrl-C (SIGINT to the whole foreground process group) reaches the supervisor alone, which stops everything in order', async () => {
    const dev = await startDev();
    const pids = serviceProcesses(dev);
    process.kill(-dev.npm.pid!, 'SIGINT');
    await dev.exited;
    await expectAllGone(dev, pids, 30_000);
    expect(stopLines(dev.output())).toEqual(ORDER);
  });
});
