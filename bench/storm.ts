import crypto from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { temporalClient } from '../src/temporal/client';
import { createAccount } from '../src/accounts/account.service';
import { jsonLines, spawnTsx } from './children';
import { BARE_START_LANES, bareWorkflowStarts, roundTo, runLanes, type BenchContext, type Figures } from './support';

const SUBSCRIPTIONS = Number(process.env.BENCH_STORM_SUBSCRIPTIONS ?? 20_000);
const WORKERS = Number(process.env.BENCH_STORM_WORKERS ?? 2);
const CUSTOMERS = Math.min(100, SUBSCRIPTIONS);
/** The task queue the API starts workflows on (config.taskQueue). */
const TASK_QUEUE = 'billing';
const BASELINE_QUEUE = 'bench-storm-baseline';
/** Creations are timed first on this many, to set the storm's second after the last creation. */
const CALIBRATION = Math.min(200, SUBSCRIPTIONS);

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A moment after `count` more jobs at `perSecond` would be done (half again as long, plus 15 s). */
const secondAfter = (count: number, perSecond: number) =>
  Math.ceil((Date.now() + (1.5 * count * 1000) / perSecond + 15_000) / 1000) * 1000;

interface Storm {
  /** Done of `SUBSCRIPTIONS`, and the time from the storm's second until the last was done (ms). */
  done: number;
  spanMs: number;
  rssBefore: number[];
  rssAfter: number[];
}

/** Worker processes of `file` on `queue`, each answering "memory" with its RSS. */
async function startWorkers(file: string, args: string[], env: NodeJS.ProcessEnv, children: ChildProcess[]) {
  const workers = await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      const child = spawnTsx(file, args, env, true);
      children.push(child);
      const says = jsonLines(child);
      await says();
      return { child, says };
    }),
  );
  return async () =>
    Promise.all(
      workers.map(async ({ child, says }) => {
        child.stdin!.write('memory\n');
        return ((await says()) as { rss: number }).rss;
      }),
    );
}

/** Polls `progress` until all are done or nothing moved for `stallMs`; answers the last reading. */
async function waitForStorm(
  progress: () => Promise<{ done: number; lastMs: number | null }>,
  atMs: number,
  stallMs = 120_000,
): Promise<{ done: number; spanMs: number }> {
  let last = { done: -1, lastMs: null as number | null };
  let movedAt = Date.now();
  for (;;) {
    const reading = await progress();
    if (reading.done !== last.done) movedAt = Date.now();
    last = reading;
    const stalled = Date.now() > Math.max(atMs, movedAt) + stallMs;
    if (process.env.BENCH_STORM_VERBOSE)
      console.log(`storm: ${reading.done} done, ${Math.round((Date.now() - atMs) / 1000)} s from its second`);
    if (reading.done >= SUBSCRIPTIONS || stalled)
      return { done: reading.done, spanMs: reading.lastMs === null ? NaN : reading.lastMs - atMs };
    await sleep(1000);
  }
}

/**
 * The bare baseline: SUBSCRIPTIONS workflows on WORKERS worker processes, each waking at the same
 * second on a timer and running one activity that writes one row.
 */
async function baselineStorm(ctx: BenchContext, children: ChildProcess[]): Promise<Storm> {
  await ctx.prisma.$executeRawUnsafe(
    'CREATE TABLE IF NOT EXISTS bench_storm_rows (id text PRIMARY KEY, written_at timestamptz NOT NULL DEFAULT clock_timestamp())',
  );
  const memory = await startWorkers(
    'baseline-worker.ts',
    [BASELINE_QUEUE, 'storm'],
    { DATABASE_URL: ctx.databaseUrl, TEMPORAL_ADDRESS: ctx.temporalAddress },
    children,
  );
  const calibration = await bareWorkflowStarts(ctx.temporalAddress, CALIBRATION);
  const atMs = secondAfter(SUBSCRIPTIONS, calibration.perSecond);
  const connection = await Connection.connect({ address: ctx.temporalAddress });
  try {
    // The service's data converter (payloads encrypted), as its worker decodes them: the same cost per payload.
    const client = temporalClient(connection);
    const run = crypto.randomUUID();
    await runLanes(SUBSCRIPTIONS, BARE_START_LANES, (index) =>
      client.workflow
        .start('stormBaselineWorkflow', {
          taskQueue: BASELINE_QUEUE,
          workflowId: `bench-storm-${run}-${index}`,
          args: [atMs, `${run}-${index}`],
        })
        .then(() => undefined),
    );
  } finally {
    await connection.close();
  }
  const rssBefore = await memory();
  const { done, spanMs } = await waitForStorm(async () => {
    const [row] = await ctx.prisma.$queryRawUnsafe<{ done: bigint; last: Date | null }[]>(
      'SELECT count(*) AS done, max(written_at) AS last FROM bench_storm_rows',
    );
    return { done: Number(row!.done), lastMs: row!.last?.getTime() ?? null };
  }, atMs);
  return { done, spanMs, rssBefore, rssAfter: await memory() };
}

/**
 * The service's storm: SUBSCRIPTIONS monthly subscriptions created through the API, all starting at
 * the same second, on WORKERS of the service's worker processes. At that second each one's workflow
 * wakes (its start delay ends, as a renewal's timer fires: decisions.md §14), bills its period
 * (invoice created and finalized) and charges it, as a renewal does. Done: its invoice paid.
 */
async function serviceStorm(ctx: BenchContext, children: ChildProcess[]) {
  const env = {
    DATABASE_URL: ctx.databaseUrl,
    TEMPORAL_ADDRESS: ctx.temporalAddress,
    WORKFLOW_BUNDLE: ctx.workflowBundle,
  };
  const memory = await startWorkers('subscription-worker.ts', [TASK_QUEUE], env, children);
  const api = spawnTsx('server-process.ts', ['api'], env);
  children.push(api);
  const { port } = await jsonLines(api)();
  const account = await createAccount(ctx.prisma, { name: 'Bench storm', role: 'developer' });
  const call = async (route: string, body: object): Promise<any> => {
    for (;;) {
      const response = await fetch(`http://127.0.0.1:${port}${route}`, {
        method: 'POST',
        headers: { 'cc-api-key': account.api_key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await response.json();
      // database_busy on a loaded machine: nothing was changed and the API asks to retry.
      if (response.status === 503) await sleep(1000 * Number(response.headers.get('retry-after') ?? 1));
      else if (response.status >= 300)
        throw new Error(`POST ${route} answered ${response.status}: ${JSON.stringify(json)}`);
      else return json;
    }
  };
  const customers: string[] = [];
  for (let index = 0; index < CUSTOMERS; index += 1) {
    const customer = await call('/customers', { name: `Storm Customer ${index}` });
    await call('/payment-methods', {
      type: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' },
      billing_details: { name: `Storm Customer ${index}` },
      customer: customer.id,
    });
    customers.push(customer.id);
  }
  const product = await call('/products', {
    name: 'Storm plan',
    currency: 'USD',
    unit_amount: 1000,
    type: 'recurring',
    recurring: { interval: 'month', interval_count: 1 },
  });
  const subscribe = (index: number, startDate: number) =>
    call('/subscriptions', {
      customer: customers[index % CUSTOMERS],
      items: [{ price: product.default_price, quantity: 1 }],
      trial_days: 0,
      start_date: startDate,
    }).then(() => undefined);
  const nextYear = Math.floor(Date.now() / 1000) + 365 * 86_400;
  const calibration = await runLanes(CALIBRATION, BARE_START_LANES, (index) => subscribe(index, nextYear));
  const atMs = secondAfter(SUBSCRIPTIONS, calibration.perSecond);
  const created = await runLanes(SUBSCRIPTIONS, BARE_START_LANES, (index) => subscribe(index, atMs / 1000));
  const late = Date.now() > atMs;
  const rssBefore = await memory();
  const paidSince = await ctx.prisma.invoice.count({ where: { accountId: account.account_id, status: 'paid' } });
  const { done, spanMs } = await waitForStorm(async () => {
    const paid = await ctx.prisma.invoice.aggregate({
      where: { accountId: account.account_id, status: 'paid' },
      _count: true,
      _max: { paidAt: true },
    });
    return { done: paid._count - paidSince, lastMs: paid._max.paidAt?.getTime() ?? null };
  }, atMs);
  const charges = await ctx.prisma.gatewayCharge.count({ where: { accountId: account.account_id, kind: 'charge' } });
  return {
    storm: { done, spanMs, rssBefore, rssAfter: await memory() } satisfies Storm,
    createdPerSecond: created.perSecond,
    late,
    chargedTwice: Math.max(0, charges - done - paidSince),
  };
}

/**
 * A renewal storm on the `server` engine (docs/performance.md): SUBSCRIPTIONS subscriptions billed and
 * charged at the same second on two worker processes, beside the bare baseline on the same engine
 * (one timer and one row each). The figure: subscriptions done per second over baseline workflows done
 * per second, counted from that second to the last one done; 0 lost and 0 charged twice.
 */
export async function benchStorm(ctx: BenchContext): Promise<Figures> {
  if (ctx.engine !== 'server' && !process.env.BENCH_STORM_ANY_ENGINE) {
    console.log('\nRenewal storm: measured on the server engine only (BENCH_STORM_ANY_ENGINE=1 to run it here)');
    return {};
  }
  const children: ChildProcess[] = [];
  // Each stopped and gone before the next storm or before Temporal stops (a worker polling a stopped
  // server only retries).
  const stopChildren = () =>
    Promise.all(
      children.splice(0).map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
            child.once('exit', resolve);
            child.kill('SIGTERM');
          }),
      ),
    );
  try {
    console.log(
      `\nRenewal storm: ${SUBSCRIPTIONS} at the same second, ${WORKERS} worker processes (${ctx.engine} engine)`,
    );
    const baseline = await baselineStorm(ctx, children);
    await stopChildren();
    const service = await serviceStorm(ctx, children);
    const rate = (storm: Storm) => (storm.done / storm.spanMs) * 1000;
    const row = (storm: Storm) => ({
      done: storm.done,
      'seconds to the last': roundTo(storm.spanMs / 1000, 1),
      'per s': Math.round(rate(storm)),
      'worker RSS MB before': storm.rssBefore.map(mb).join(' / '),
      after: storm.rssAfter.map(mb).join(' / '),
    });
    console.table({ 'bare timer + one row': row(baseline), 'subscription billed and charged': row(service.storm) });
    const lost = SUBSCRIPTIONS - service.storm.done;
    const stormRatio = rate(service.storm) / rate(baseline);
    console.log(
      `renewal storm subscriptions/baseline: ${stormRatio.toFixed(2)}x (goal 0.5x), lost ${lost}, charged twice ${service.chargedTwice}` +
        (service.late ? ' (creations ran past the storm second: some started early)' : ''),
    );
    return {
      'scale.renewal_storm_ratio': roundTo(stormRatio),
      'scale.renewals_lost': lost,
      'scale.renewals_charged_twice': service.chargedTwice,
      'scale.renewal_storm_worker_rss_mb_max': mb(Math.max(...service.storm.rssAfter)),
    };
  } finally {
    await stopChildren();
  }
}
