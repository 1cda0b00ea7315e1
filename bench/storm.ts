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
  count = SUBSCRIPTIONS,
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
    if (reading.done >= count || stalled)
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

/** The service's worker processes and API (children), an account of its own, and a POST through its API. */
async function startService(ctx: BenchContext, children: ChildProcess[], name: string) {
  const env = {
    DATABASE_URL: ctx.databaseUrl,
    TEMPORAL_ADDRESS: ctx.temporalAddress,
    WORKFLOW_BUNDLE: ctx.workflowBundle,
  };
  const memory = await startWorkers('subscription-worker.ts', [TASK_QUEUE], env, children);
  const api = spawnTsx('server-process.ts', ['api'], env);
  children.push(api);
  const { port } = await jsonLines(api)();
  const account = await createAccount(ctx.prisma, { name, role: 'developer' });
  const call: Post = async (route, body) => {
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
  return { memory, account, call };
}

type Post = (route: string, body: object) => Promise<any>;

/** A customer (`body`: its name, its test clock) with a card that pays, through the API; answers its id. */
async function customerWithCard(call: Post, body: { name: string; test_clock?: string }): Promise<string> {
  const customer = await call('/customers', body);
  await call('/payment-methods', {
    type: 'card',
    card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' },
    billing_details: { name: body.name },
    customer: customer.id,
  });
  return customer.id as string;
}

/** A product with a monthly default price of `unitAmount` cents. */
function monthlyProduct(call: Post, name: string, unitAmount: number): Promise<any> {
  return call('/products', {
    name,
    currency: 'USD',
    unit_amount: unitAmount,
    type: 'recurring',
    recurring: { interval: 'month', interval_count: 1 },
  });
}

/**
 * The service's storm: SUBSCRIPTIONS monthly subscriptions created through the API, all starting at
 * the same second, on WORKERS of the service's worker processes. At that second each one's workflow
 * wakes (its start delay ends, as a renewal's timer fires: decisions.md §14), bills its period
 * (invoice created and finalized) and charges it, as a renewal does. Done: its invoice paid.
 */
async function serviceStorm(ctx: BenchContext, children: ChildProcess[]) {
  const { memory, account, call } = await startService(ctx, children, 'Bench storm');
  const customers: string[] = [];
  for (let index = 0; index < CUSTOMERS; index += 1) {
    customers.push(await customerWithCard(call, { name: `Storm Customer ${index}` }));
  }
  const product = await monthlyProduct(call, 'Storm plan', 1000);
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
 * Stops `children`, each gone before the next storm or before Temporal stops (a worker polling a stopped server
 * only retries).
 */
const stopper = (children: ChildProcess[]) => () =>
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

/** Done per second, from the storm's second to the last one done. */
const stormRate = (storm: Storm) => (storm.done / storm.spanMs) * 1000;

const stormRow = (storm: Storm) => ({
  done: storm.done,
  'seconds to the last': roundTo(storm.spanMs / 1000, 1),
  'per s': Math.round(stormRate(storm)),
  'worker RSS MB before': storm.rssBefore.map(mb).join(' / '),
  after: storm.rssAfter.map(mb).join(' / '),
});

/**
 * Runs `storms` on the server engine only (BENCH_STORM_ANY_ENGINE=1 elsewhere too) with the child processes they
 * start, every one stopped at the end whatever happens.
 */
async function onServerEngine(
  ctx: BenchContext,
  name: string,
  storms: (children: ChildProcess[], stopChildren: () => Promise<unknown>) => Promise<Figures>,
): Promise<Figures> {
  if (ctx.engine !== 'server' && !process.env.BENCH_STORM_ANY_ENGINE) {
    console.log(`\n${name}: measured on the server engine only (BENCH_STORM_ANY_ENGINE=1 to run it here)`);
    return {};
  }
  const children: ChildProcess[] = [];
  const stopChildren = stopper(children);
  try {
    return await storms(children, stopChildren);
  } finally {
    await stopChildren();
  }
}

/**
 * A renewal storm on the `server` engine (docs/performance.md): SUBSCRIPTIONS subscriptions billed and
 * charged at the same second on two worker processes, beside the bare baseline on the same engine
 * (one timer and one row each). The figure: subscriptions done per second over baseline workflows done
 * per second, counted from that second to the last one done; 0 lost and 0 charged twice.
 */
export async function benchStorm(ctx: BenchContext): Promise<Figures> {
  return onServerEngine(ctx, 'Renewal storm', async (children, stopChildren) => {
    console.log(
      `\nRenewal storm: ${SUBSCRIPTIONS} at the same second, ${WORKERS} worker processes (${ctx.engine} engine)`,
    );
    const baseline = await baselineStorm(ctx, children);
    await stopChildren();
    const service = await serviceStorm(ctx, children);
    console.table({
      'bare timer + one row': stormRow(baseline),
      'subscription billed and charged': stormRow(service.storm),
    });
    const lost = SUBSCRIPTIONS - service.storm.done;
    const stormRatio = stormRate(service.storm) / stormRate(baseline);
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
  });
}

const USAGE_SUBSCRIPTIONS = Number(process.env.BENCH_USAGE_STORM_SUBSCRIPTIONS ?? 10_000);
/** Customers of the metered storm: one live item per meter and customer (docs/decisions.md §43), so a meter each 1,000. */
const USAGE_CUSTOMERS = Math.min(1000, USAGE_SUBSCRIPTIONS);
const USAGE_METERS = Math.ceil(USAGE_SUBSCRIPTIONS / USAGE_CUSTOMERS);
/** Customers per test clock: the clocks advance together, each telling its own workflows. */
const CUSTOMERS_PER_CLOCK = 100;
/** Usage events per metered subscription, sent in batches of 1,000 before the storm. */
const EVENTS_PER_SUBSCRIPTION = 3;
const USAGE_BATCH = 1000;
/** The clocks' time at creation: a month's first second, so that every period ends on Feb 1. */
const USAGE_START = Date.UTC(2026, 0, 1) / 1000;
/** Past Feb 1 and its usage grace (1 hour by default): every period's invoice is due. */
const USAGE_STORM_TIME = Date.UTC(2026, 1, 1, 2) / 1000;

/**
 * The metered storm: USAGE_SUBSCRIPTIONS monthly subscriptions of a metered price created through the API, each
 * with EVENTS_PER_SUBSCRIPTION usage events in its period, all closing their period at the same second, on WORKERS
 * of the service's worker processes. A metered period cannot end on the wall clock within a bench's minutes (a
 * past start_date starts now, the shortest interval is a day), so their customers are on test clocks: at the
 * storm's second every clock advances past the period's end and its grace, and each workflow wakes (the clock's
 * signal, where the licensed storm's wake on their timers), reads its meter's total, bills the usage under the
 * customer's usage lock and charges it. Done: its period's invoice (subscription_cycle) paid; the span is read
 * from the invoices' updated_ms (the wall clock: their dates are the clocks').
 */
async function usageStorm(ctx: BenchContext, children: ChildProcess[]) {
  const { memory, account, call } = await startService(ctx, children, 'Bench usage storm');
  const clocks: string[] = [];
  for (let index = 0; index < Math.ceil(USAGE_CUSTOMERS / CUSTOMERS_PER_CLOCK); index += 1)
    clocks.push((await call('/test-helpers/test-clocks', { frozen_time: USAGE_START, name: `Storm ${index}` })).id);
  const customers: string[] = [];
  await runLanes(USAGE_CUSTOMERS, BARE_START_LANES, async (index) => {
    const clock = clocks[Math.floor(index / CUSTOMERS_PER_CLOCK)];
    customers[index] = await customerWithCard(call, { name: `Usage Storm Customer ${index}`, test_clock: clock });
  });
  const product = await monthlyProduct(call, 'Storm usage plan', 1);
  const meters: { eventName: string; price: string }[] = [];
  for (let index = 0; index < USAGE_METERS; index += 1) {
    const eventName = `storm_tokens_${index}`;
    const meter = await call('/meters', {
      name: `Storm tokens ${index}`,
      event_name: eventName,
      aggregation: 'sum',
      value_property: 'tokens',
    });
    const price = await call(`/prices/${product.id}`, {
      currency: 'USD',
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1, usage_type: 'metered', meter: meter.id },
      unit_amount: 3,
    });
    meters.push({ eventName, price: price.id });
  }
  // Subscription `index`: customer index % USAGE_CUSTOMERS on meter floor(index / USAGE_CUSTOMERS).
  const ofIndex = (index: number) => ({
    customer: customers[index % USAGE_CUSTOMERS]!,
    meter: meters[Math.floor(index / USAGE_CUSTOMERS)]!,
  });
  await runLanes(USAGE_SUBSCRIPTIONS, BARE_START_LANES, async (index) => {
    const { customer, meter } = ofIndex(index);
    await call('/subscriptions', {
      customer,
      items: [{ price: meter.price }],
      trial_days: 0,
      start_date: USAGE_START,
    });
  });
  const run = crypto.randomUUID().slice(0, 8);
  const events = Array.from({ length: USAGE_SUBSCRIPTIONS * EVENTS_PER_SUBSCRIPTION }, (_, n) => {
    const index = Math.floor(n / EVENTS_PER_SUBSCRIPTION);
    const { customer, meter } = ofIndex(index);
    return {
      id: `${run}-${n}`,
      event_name: meter.eventName,
      customer,
      timestamp: USAGE_START + 60,
      properties: { tokens: (n % 7) + 1 },
    };
  });
  await runLanes(Math.ceil(events.length / USAGE_BATCH), 4, async (batch) => {
    await call('/usage-events', { events: events.slice(batch * USAGE_BATCH, (batch + 1) * USAGE_BATCH) });
  });
  const cycleInvoices = async () => {
    const [row] = await ctx.prisma.$queryRawUnsafe<{ done: bigint; last: bigint | null }[]>(
      `SELECT count(*) AS done, max(updated_ms) AS last FROM invoices
        WHERE account_id = $1 AND status = 'paid' AND billing_reason = 'subscription_cycle'`,
      account.account_id,
    );
    return { done: Number(row!.done), lastMs: row!.last === null ? null : Number(row!.last) };
  };
  const rssBefore = await memory();
  const atMs = Date.now();
  await Promise.all(
    clocks.map((clock) => call(`/test-helpers/test-clocks/${clock}/advance`, { frozen_time: USAGE_STORM_TIME })),
  );
  const { done, spanMs } = await waitForStorm(cycleInvoices, atMs, 120_000, USAGE_SUBSCRIPTIONS);
  const charges = await ctx.prisma.gatewayCharge.count({ where: { accountId: account.account_id, kind: 'charge' } });
  return {
    storm: { done, spanMs, rssBefore, rssAfter: await memory() } satisfies Storm,
    chargedTwice: Math.max(0, charges - done),
  };
}

/**
 * The metered storm beside the licensed one, in the same run on the same engine (docs/performance.md, "Usage
 * storm"): BENCH_STORM_SUBSCRIPTIONS licensed renewals, then BENCH_USAGE_STORM_SUBSCRIPTIONS metered ones billed at
 * one period end. The figure: metered subscriptions done per second over licensed ones (goal 0.5x), 0 lost and 0
 * charged twice.
 */
export async function benchUsageStorm(ctx: BenchContext): Promise<Figures> {
  return onServerEngine(ctx, 'Usage storm', async (children, stopChildren) => {
    console.log(
      `\nUsage storm: ${USAGE_SUBSCRIPTIONS} metered (${USAGE_METERS} meters, ${EVENTS_PER_SUBSCRIPTION} events each) beside ${SUBSCRIPTIONS} licensed, ${WORKERS} worker processes (${ctx.engine} engine)`,
    );
    const licensed = await serviceStorm(ctx, children);
    await stopChildren();
    const metered = await usageStorm(ctx, children);
    console.table({
      'licensed renewal': stormRow(licensed.storm),
      'metered renewal (usage billed)': stormRow(metered.storm),
    });
    const lost = USAGE_SUBSCRIPTIONS - metered.storm.done;
    const ratio = stormRate(metered.storm) / stormRate(licensed.storm);
    console.log(
      `usage storm metered/licensed: ${ratio.toFixed(2)}x (goal 0.5x): ${Math.round(stormRate(metered.storm))} and ${Math.round(stormRate(licensed.storm))} per s, lost ${lost}, charged twice ${metered.chargedTwice}`,
    );
    return {
      usage_storm_ratio: roundTo(ratio),
      usage_storm_per_second: Math.round(stormRate(metered.storm)),
      usage_storm_licensed_per_second: Math.round(stormRate(licensed.storm)),
      usage_storm_lost: lost,
      usage_storm_charged_twice: metered.chargedTwice,
    };
  });
}
