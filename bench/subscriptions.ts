import type { ChildProcess } from 'node:child_process';
import { jsonLines, spawnTsx } from './children';
import { Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { createAccount } from '../src/accounts/account.service';
import { createdUpdate, subscriptionWorkflowId } from '../workflows/subscription-messages';
import {
  BARE_START_LANES,
  bareWorkflowStarts,
  cpuInAllPerJob,
  cpuPerJob,
  cpuOfBurst,
  ratio,
  workflowStarts,
  roundTo,
  runLanes,
  type BenchContext,
  type Figures,
  type LaneResult,
} from './support';
import { temporalClient } from '../src/temporal/client';
import { pgStatements } from './pg-statements';

const CREATIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 300);
const IDLE = Number(process.env.BENCH_IDLE_SUBSCRIPTIONS ?? 10_000);
/** The task queue the API starts workflows on (config.taskQueue): the bench worker polls it. */
const TASK_QUEUE = 'billing';
/** The creation baseline's task queue, polled by bench/baseline-worker.ts on the service's worker settings. */
const BASELINE_QUEUE = 'bench-creation-baseline';

/** Memory is read at these fractions of IDLE (and before the first). */
const IDLE_CHECKPOINTS = [0.2, 0.5, 1];

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** What bench/subscription-worker.ts answers "memory" with (bytes). */
interface WorkerMemory {
  rss: number;
  anonymous: number;
  heapUsed: number;
  threadsHeapUsed: number;
  threadsHeapTotal: number;
  threads: number;
  /** MB per V8 heap space, per thread (main first). */
  spaces: Record<string, number>[];
  external: number;
  arrayBuffers: number;
  cachedWorkflows: number;
  cpuMs: number;
}

/**
 * Subscriptions created per second through the API beside the same Temporal work without the service:
 * starts of a workflow whose first task, on a worker of the service's settings, registers a `state` query
 * and waits on a timer (bench/baseline-workflows.ts), as every subscription's first task does (it runs at
 * creation: docs/decisions.md §14). The ratio, of the CPU per job with each row counted until its first
 * tasks have run, is what the service adds: a creation's transaction (the row, and for an active one its
 * first invoice, created and finalized, and the workflow_starts row), for an active one the first charge
 * and the record of its paid period, made by the API, and its workflow's first task. The answered rates'
 * ratio and bare starts no worker runs are printed beside, the baselines of earlier rounds. Then the
 * worker's memory with IDLE scheduled subscriptions waiting on their timers.
 */
export async function benchSubscriptions(ctx: BenchContext): Promise<Figures> {
  const env = {
    DATABASE_URL: ctx.databaseUrl,
    TEMPORAL_ADDRESS: ctx.temporalAddress,
    WORKFLOW_BUNDLE: ctx.workflowBundle,
  };
  const children: ChildProcess[] = [];
  try {
    const worker = spawnTsx('subscription-worker.ts', [TASK_QUEUE], env, true);
    children.push(worker);
    const workerSays = jsonLines(worker);
    await workerSays();
    const memory = async () => {
      worker.stdin!.write('memory\n');
      return (await workerSays()) as WorkerMemory;
    };
    const rest = await memory(); // polling, nothing cached yet
    const api = spawnTsx('server-process.ts', ['api'], env);
    children.push(api);
    const { port } = await jsonLines(api)();
    const base = `http://127.0.0.1:${port}`;

    const account = await createAccount(ctx.prisma, { name: 'Bench subscriptions', role: 'developer' });
    let retried503 = 0;
    const call = async (method: string, route: string, body?: object): Promise<any> => {
      const response = await fetch(`${base}${route}`, {
        method,
        headers: { 'cc-api-key': account.api_key, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = await response.json();
      if (response.status === 503) {
        // database_busy on a loaded machine: nothing was changed and the API asks to retry; counted and printed.
        retried503 += 1;
        await new Promise((resolve) => setTimeout(resolve, 1000 * Number(response.headers.get('retry-after') ?? 1)));
        return call(method, route, body);
      }
      if (response.status >= 300)
        throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(json)}`);
      return json;
    };
    const customer = await call('POST', '/customers', { name: 'Bench Customer' });
    await call('POST', '/payment-methods', {
      type: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' },
      billing_details: { name: 'Bench Customer' },
      customer: customer.id,
    });
    const product = await call('POST', '/products', {
      name: 'Bench plan',
      currency: 'USD',
      unit_amount: 1000,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
    });
    const subscribe = (startDate: number) =>
      call('POST', '/subscriptions', {
        customer: customer.id,
        items: [{ price: product.default_price, quantity: 1 }],
        trial_days: 0,
        start_date: startDate,
      });
    const now = () => Math.floor(Date.now() / 1000);
    const nextYear = () => now() + 365 * 86_400;

    await runLanes(20, BARE_START_LANES, () => subscribe(now()).then(() => undefined)); // warm-up: connections, JIT, the workflow bundle in the worker

    console.log(
      `\nSubscriptions: ${CREATIONS} creations per row over ${BARE_START_LANES} concurrent lanes, same Temporal server (${ctx.engine} engine)`,
    );
    const statements = await pgStatements(ctx.databaseUrl);
    const bare = await bareWorkflowStarts(ctx.temporalAddress, CREATIONS);
    const baselineWorker = spawnTsx('baseline-worker.ts', [BASELINE_QUEUE, 'creation'], env, true);
    children.push(baselineWorker);
    await jsonLines(baselineWorker)();
    const baselineProcesses = { api: api.pid, worker: baselineWorker.pid };
    await statements.reset();
    const { result: readable, cpuMs: cpuBaseline } = await cpuOfBurst(baselineProcesses, () =>
      workflowStarts(ctx.temporalAddress, CREATIONS, {
        workflowType: 'creationBaselineWorkflow',
        taskQueue: BASELINE_QUEUE,
        args: () => [Date.now() + 365 * 86_400_000],
      }),
    );
    await statements.print('baseline start (first task run)', CREATIONS);
    baselineWorker.kill('SIGTERM');
    const processes = { api: api.pid, worker: worker.pid };
    await statements.reset();
    const { result: scheduled, cpuMs: cpuScheduled } = await cpuOfBurst(processes, () =>
      runLanes(CREATIONS, BARE_START_LANES, () => subscribe(nextYear()).then(() => undefined)),
    );
    await statements.print('scheduled creation', CREATIONS);
    await statements.reset();
    const { result: active, cpuMs: cpuCharged } = await cpuOfBurst(processes, () =>
      runLanes(CREATIONS, BARE_START_LANES, () => subscribe(now()).then(() => undefined)),
    );
    await statements.print('charged creation', CREATIONS);
    await statements.close();
    const row = (result: LaneResult) => ({
      'per s': Math.round(result.perSecond),
      'p50 ms': +result.p50.toFixed(1),
      'p99 ms': +result.p99.toFixed(1),
    });
    console.table({
      'bare workflow start (no worker)': row(bare),
      'workflow start, first task run (query, timer)': row(readable),
      'POST /subscriptions, scheduled': row(scheduled),
      'POST /subscriptions, first invoice charged': row(active),
    });
    console.log(
      `CPU ms per creation, scheduled: ${cpuPerJob({}, cpuScheduled, CREATIONS)}; charged: ${cpuPerJob({}, cpuCharged, CREATIONS)}` +
        `; per baseline start whose first task runs: ${cpuPerJob({}, cpuBaseline, CREATIONS)}`,
    );
    if (retried503 > 0)
      console.log(`(${retried503} creations answered 503 database_busy and were retried; the machine is loaded)`);
    // The like-for-like ratio: the machine's CPU per job, the baseline's over the creation's, each row counted
    // until its first tasks have run; the rate a load long enough to leave no work behind it would reach on a
    // machine all of whose cores these processes share. The answered rates are not like for like: the
    // baseline's row ends with most of its first tasks still to run (docs/performance.md, "What a burst leaves
    // behind", "Twenty-sixth round").
    const cpuEach = {
      baseline: cpuInAllPerJob({}, cpuBaseline, CREATIONS),
      scheduled: cpuInAllPerJob({}, cpuScheduled, CREATIONS),
      charged: cpuInAllPerJob({}, cpuCharged, CREATIONS),
    };
    console.log(
      `subscriptions via API against workflow starts whose first task runs, by CPU per job (like for like): scheduled ${ratio(cpuEach.baseline, cpuEach.scheduled)}, charged at creation ${ratio(cpuEach.baseline, cpuEach.charged)};` +
        ` by answered rate: ${ratio(scheduled.perSecond, readable.perSecond)}, ${ratio(active.perSecond, readable.perSecond)}` +
        ` (against bare starts no worker runs, the earliest baseline: ${ratio(scheduled.perSecond, bare.perSecond)}, ${ratio(active.perSecond, bare.perSecond)})`,
    );

    // Each idle one is woken once more, by an update its workflow refuses (nothing written), so that it has
    // run and waits on its timer as after a renewal, the worker's worst case (in its cache or evicted),
    // whatever SUBSCRIPTION_FIRST_TASK says (with first-step its first task would not have run yet).
    const connection = await Connection.connect({ address: ctx.temporalAddress });
    const temporal = temporalClient(connection);
    const wake = (subscriptionId: string) =>
      temporal.workflow
        .getHandle(subscriptionWorkflowId(subscriptionId))
        .executeUpdate(createdUpdate)
        .then(
          () => Promise.reject(new Error(`subscription ${subscriptionId}: the created update was not refused`)),
          (error: unknown) => {
            if (!(error instanceof WorkflowUpdateFailedError)) throw error;
          },
        );
    const before = await memory();
    const readings: { idle: number; perSecond: number; memory: WorkerMemory }[] = [
      { idle: 0, perSecond: 0, memory: before },
    ];
    try {
      for (const fraction of IDLE_CHECKPOINTS) {
        const target = Math.round(IDLE * fraction);
        const done = readings.at(-1)!.idle;
        if (target <= done) continue;
        const created: string[] = [];
        const idle = await runLanes(target - done, 50, () =>
          subscribe(nextYear()).then((subscription: { id: string }) => void created.push(subscription.id)),
        );
        await runLanes(created.length, 50, (index) => wake(created[index]!));
        readings.push({ idle: target, perSecond: idle.perSecond, memory: await memory() });
      }
    } finally {
      await connection.close();
    }
    const after = readings.at(-1)!.memory;
    const rows = await ctx.prisma.subscription.count({ where: { accountId: account.account_id, status: 'scheduled' } });
    const perSecond = Math.round(
      readings.slice(1).reduce((sum, reading) => sum + reading.perSecond, 0) / Math.max(1, readings.length - 1),
    );
    const cpuMsEach = (after.cpuMs - before.cpuMs) / Math.max(1, readings.at(-1)!.idle);
    console.log(
      `\nWorker memory with idle (scheduled) subscriptions (${rows} in all), created at about ${perSecond}/s and each woken once; after a GC of every thread ` +
        `(the worker's CPU: ${cpuMsEach.toFixed(1)} ms per idle subscription created and woken):`,
    );
    if (process.env.BENCH_HEAP_SPACES)
      for (const { idle, memory: m } of readings) console.log(idle, JSON.stringify(m.spaces));
    console.table(
      Object.fromEntries(
        [{ idle: -1, memory: rest }, ...readings].map(({ idle, memory: m }) => [
          idle < 0 ? 'at rest' : `${idle} idle`,
          {
            'rss MB': mb(m.rss),
            'anon MB': mb(m.anonymous),
            'main heap MB': mb(m.heapUsed),
            'workflow thread heap MB': `${mb(m.threadsHeapUsed)} of ${mb(m.threadsHeapTotal)}`,
            'external MB': mb(m.external),
            'cached workflows': m.cachedWorkflows,
          },
        ]),
      ),
    );
    return {
      subscription_create_ratio: roundTo(cpuEach.baseline / cpuEach.scheduled),
      subscription_charge_ratio: roundTo(cpuEach.baseline / cpuEach.charged),
      subscription_create_answered_ratio: roundTo(scheduled.perSecond / readable.perSecond),
      subscription_charge_answered_ratio: roundTo(active.perSecond / readable.perSecond),
      subscription_create_bare_start_ratio: roundTo(scheduled.perSecond / bare.perSecond),
      subscription_charge_bare_start_ratio: roundTo(active.perSecond / bare.perSecond),
      worker_rss_mb_idle_10k: mb(after.rss),
      worker_rss_mb_before: mb(before.rss),
      worker_rss_mb_rest: mb(rest.rss),
      worker_cpu_ms_per_idle_subscription: roundTo(cpuMsEach),
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}
