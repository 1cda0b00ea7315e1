import type { ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { Client, Pool } from 'pg';
import { createAccount } from '../src/accounts/account.service';
import { analyzeSeededTables, openSeedSession, seedChunk, seedSupportingRows } from '../src/scale/seed.records';
import { jsonLines, spawnTsx } from './children';
import { startServer } from './customers';
import { percentile, ratio, roundTo, type BenchContext, type Figures } from './support';
import { Connection, type Client as TemporalClient } from '@temporalio/client';
import { temporalClient } from '../src/temporal/client';
import { subscriptionWorkflowId, usageReportedSignal } from '../workflows/subscription-messages';

// Usage ingestion (docs/api.md "Usage-based billing"): batches of 1,000 events through POST /usage-events
// beside the bare statement, the same batches written by `pg` with the same multi-row INSERT into a table
// made like usage_events, in the same run, in alternating rounds; then every id counted once. Then the
// API is killed (SIGKILL) in the middle of a burst of batches, started again, and every batch not answered
// 202 sent again: every id is counted once. Then a second account is seeded with BENCH_USAGE_AGGREGATE_EVENTS
// events (npm run seed:scale's statements) and one customer's period total is read through the API; then the upcoming
// invoice and the usage to date of a subscription on a graduated metered price, checked against the seeded events.

const BATCH = 1000;
const LANES = Number(process.env.BENCH_USAGE_LANES ?? 4);
/**
 * The lanes of the latency's rounds: as many batches in flight as the machine has cores. Past that a batch waits
 * for a core behind the others, so the saturated rounds' p99 is the queue's (docs/performance.md, "A batch's p99 at
 * the cores' concurrency").
 */
const CORE_LANES = Number(process.env.BENCH_USAGE_CORE_LANES ?? availableParallelism());
const ROUNDS = Number(process.env.BENCH_USAGE_ROUNDS ?? 4);
const BATCHES_PER_ROUND = Number(process.env.BENCH_USAGE_BATCHES ?? 20);
/** Usage events of the aggregation's account (10,000,000 in the figure), over BENCH_USAGE_CUSTOMERS customers. */
const AGGREGATE_EVENTS = Number(process.env.BENCH_USAGE_AGGREGATE_EVENTS ?? 10_000_000);
const AGGREGATE_CUSTOMERS = Number(process.env.BENCH_USAGE_CUSTOMERS ?? 10_000);
const AGGREGATE_RUNS = Number(process.env.BENCH_USAGE_AGGREGATE_RUNS ?? 100);

const BARE_INSERT = `INSERT INTO bench_usage_events (account_id, id, event_name, customer_id, timestamp, properties)
  SELECT $1, e.id, e.event_name, e.customer_id, e.timestamp, e.properties
  FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::jsonb[])
    AS e(id, event_name, customer_id, timestamp, properties)
  ON CONFLICT (account_id, id) DO NOTHING`;

interface UsageEvent {
  id: string;
  event_name: string;
  customer: string;
  timestamp: number;
  properties: Record<string, number>;
}

function batchOf(prefix: string, batch: number, customer: string): UsageEvent[] {
  const timestamp = Math.floor(Date.now() / 1000) - 60;
  return Array.from({ length: BATCH }, (_, index) => ({
    id: `${prefix}-${batch}-${index}`,
    event_name: 'bench_call',
    customer,
    timestamp,
    properties: { tokens: (index % 50) + 1 },
  }));
}

/** `batches` batches over `lanes` concurrent lanes: events/s and each batch's milliseconds. */
async function run(
  batches: number,
  send: (batch: number) => Promise<void>,
  lanes = LANES,
): Promise<{ seconds: number; ms: number[] }> {
  const ms: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let batch = next++; batch < batches; batch = next++) {
        const at = performance.now();
        await send(batch);
        ms.push(performance.now() - at);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, ms };
}

interface IngestFigures {
  apiRate: number;
  bareRate: number;
  api: { p50: number; p99: number };
  bare: { p50: number; p99: number };
}

/** ROUNDS rounds on `lanes` lanes, each the bare insert's batches then the API's (ids `<prefix><round>-...`). */
async function alternate(
  prefix: string,
  lanes: number,
  viaApi: (prefix: string, batch: number) => Promise<void>,
  bare: (prefix: string, batch: number) => Promise<void>,
): Promise<IngestFigures> {
  const totals = { api: { seconds: 0, ms: [] as number[] }, bare: { seconds: 0, ms: [] as number[] } };
  for (let round = 0; round < ROUNDS; round++) {
    const base = await run(BATCHES_PER_ROUND, (batch) => bare(`${prefix}${round}`, batch), lanes);
    const ours = await run(BATCHES_PER_ROUND, (batch) => viaApi(`${prefix}${round}`, batch), lanes);
    totals.bare.seconds += base.seconds;
    totals.bare.ms.push(...base.ms);
    totals.api.seconds += ours.seconds;
    totals.api.ms.push(...ours.ms);
  }
  const events = ROUNDS * BATCHES_PER_ROUND * BATCH;
  const spread = (ms: number[]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    return { p50: roundTo(percentile(sorted, 50), 1), p99: roundTo(percentile(sorted, 99), 1) };
  };
  return {
    apiRate: Math.round(events / totals.api.seconds),
    bareRate: Math.round(events / totals.bare.seconds),
    api: spread(totals.api.ms),
    bare: spread(totals.bare.ms),
  };
}

export async function benchUsage(ctx: BenchContext): Promise<Figures> {
  const account = await createAccount(ctx.prisma, { name: 'Bench usage', role: 'developer' });
  const customer = await ctx.prisma.customer.create({
    data: { id: 'cus_benchusage00000000000001', accountId: account.account_id, name: 'Usage Customer' },
  });
  await ctx.prisma.meter.create({
    data: {
      id: 'mtr_benchusage0000000000001',
      accountId: account.account_id,
      name: 'Calls',
      eventName: 'bench_call',
      aggregation: 'sum',
      valueProperty: 'tokens',
    },
  });
  const pool = new Pool({ connectionString: ctx.databaseUrl, max: Math.max(LANES, CORE_LANES) });
  await pool.query('CREATE TABLE bench_usage_events (LIKE usage_events INCLUDING ALL)');
  const children: ChildProcess[] = [];
  try {
    const api = await startServer('api', {
      DATABASE_URL: ctx.databaseUrl,
      TEMPORAL_ADDRESS: ctx.temporalAddress,
      BENCH_ACCOUNT_ID: account.account_id,
    });
    children.push(api.child);
    const headers = { 'cc-api-key': account.api_key, 'content-type': 'application/json' };
    const viaApi = async (prefix: string, batch: number) => {
      const body = JSON.stringify({ events: batchOf(prefix, batch, customer.id) });
      const response = await fetch(`http://127.0.0.1:${api.port}/usage-events`, { method: 'POST', headers, body });
      if (response.status !== 202)
        throw new Error(`POST /usage-events answered ${response.status}: ${await response.text()}`);
    };
    const bare = async (prefix: string, batch: number) => {
      const events = batchOf(prefix, batch, customer.id);
      await pool.query(BARE_INSERT, [
        account.account_id,
        events.map((event) => event.id),
        events.map((event) => event.event_name),
        events.map((event) => event.customer),
        events.map((event) => new Date(event.timestamp * 1000).toISOString()),
        events.map((event) => JSON.stringify(event.properties)),
      ]);
    };
    // Warm-up: JIT, pools, prepared statements.
    await run(LANES * 2, (batch) => viaApi('warm', batch));
    await run(LANES * 2, (batch) => bare('warm', batch));
    const saturated = await alternate('r', LANES, viaApi, bare);
    const atCores = await alternate('c', CORE_LANES, viaApi, bare);
    // A retried round: every id already there, none counted again.
    await run(BATCHES_PER_ROUND, (batch) => viaApi('r0', batch));
    const sent = (2 * ROUNDS * BATCHES_PER_ROUND + LANES * 2) * BATCH;
    const [{ count }] = (
      await pool.query<{ count: string }>('SELECT count(*) FROM usage_events WHERE account_id = $1', [
        account.account_id,
      ])
    ).rows as [{ count: string }];
    for (const [lanes, figures] of [
      [LANES, saturated],
      [CORE_LANES, atCores],
    ] as const) {
      console.log(
        `\nusage events: ${ROUNDS} alternating rounds of ${BATCHES_PER_ROUND} batches of ${BATCH}, ${lanes} lanes, after a warm-up`,
      );
      console.table({
        bare_insert: {
          'events/s': figures.bareRate,
          'batch p50 ms': figures.bare.p50,
          'batch p99 ms': figures.bare.p99,
        },
        api: { 'events/s': figures.apiRate, 'batch p50 ms': figures.api.p50, 'batch p99 ms': figures.api.p99 },
      });
      console.log(`usage api/bare at ${lanes} lanes: throughput ${ratio(figures.apiRate, figures.bareRate)}`);
    }
    console.log(`usage: ${sent} distinct ids sent, ${count} rows (a retried round included)`);
    const killed = await ingestThroughAKill(ctx, account.api_key, customer.id, pool, account.account_id);
    const aggregation = AGGREGATE_EVENTS > 0 ? await aggregateAtScale(ctx) : {};
    return {
      ...killed,
      ...aggregation,
      'usage.ingest_ratio': roundTo(saturated.apiRate / saturated.bareRate),
      'usage.api_events_per_s': saturated.apiRate,
      'usage.bare_events_per_s': saturated.bareRate,
      'usage.batch_p99_ms': saturated.api.p99,
      'usage.bare_batch_p99_ms': saturated.bare.p99,
      'usage.ingest_ratio_at_cores': roundTo(atCores.apiRate / atCores.bareRate),
      'usage.batch_p99_ms_at_cores': atCores.api.p99,
      'usage.bare_batch_p99_ms_at_cores': atCores.bare.p99,
      'usage.events_miscounted': Math.abs(sent - Number(count)),
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await pool.end();
  }
}

const KILL_BATCHES = 40;

/**
 * KILL_BATCHES batches on LANES lanes to an API of their own, killed (SIGKILL) once a quarter of them were
 * answered and started again; each lane sends a batch until it is answered 202, as a client retries, so
 * the batches cut off by the kill are sent again (some of them were committed before it: their ids must
 * not count twice). The API writes events itself (no worker is on their path).
 */
async function ingestThroughAKill(
  ctx: BenchContext,
  apiKey: string,
  customerId: string,
  pool: Pool,
  accountId: string,
): Promise<Figures> {
  const env = { DATABASE_URL: ctx.databaseUrl, TEMPORAL_ADDRESS: ctx.temporalAddress };
  let api = await startServer('api', env);
  let restarting: Promise<void> | null = null;
  let answered = 0;
  let cutOff = 0;
  let killedAt = -1;
  const headers = { 'cc-api-key': apiKey, 'content-type': 'application/json' };
  const send = async (batch: number): Promise<void> => {
    const body = JSON.stringify({ events: batchOf('kill', batch, customerId) });
    for (;;) {
      await restarting;
      try {
        const response = await fetch(`http://127.0.0.1:${api.port}/usage-events`, { method: 'POST', headers, body });
        if (response.status === 202) break;
        throw new Error(`POST /usage-events answered ${response.status}: ${await response.text()}`);
      } catch (error) {
        if (!(error instanceof TypeError)) throw error; // fetch's connection errors: the API was killed
        cutOff += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    answered += 1;
    if (answered === Math.floor(KILL_BATCHES / 4) && killedAt < 0) {
      killedAt = answered;
      api.child.kill('SIGKILL');
      restarting = startServer('api', env).then((started) => {
        api = started;
        restarting = null;
      });
    }
  };
  try {
    await run(KILL_BATCHES, send);
  } finally {
    api.child.kill('SIGTERM');
  }
  const [{ count }] = (
    await pool.query<{ count: string }>(
      "SELECT count(*) FROM usage_events WHERE account_id = $1 AND id LIKE 'kill-%'",
      [accountId],
    )
  ).rows as [{ count: string }];
  const sent = KILL_BATCHES * BATCH;
  console.log(
    `usage events through an API killed (SIGKILL) after ${killedAt} of ${KILL_BATCHES} batches: ${cutOff} sends cut off and sent again; ` +
      `${sent} distinct ids sent, ${count} rows`,
  );
  return { 'usage.kill_events_miscounted': Math.abs(sent - Number(count)), 'usage.kill_sends_cut_off': cutOff };
}

/**
 * An account of AGGREGATE_CUSTOMERS customers and AGGREGATE_EVENTS usage events of one summed meter over
 * 90 days (seed:scale's statements: one event in ten is the first customer's), then AGGREGATE_RUNS reads,
 * one at a time, of a customer's total over the last 30 days through GET /meters/{id}/event-summaries:
 * the heaviest customer's (a tenth of the events) and any other's; and the heaviest one's per day.
 */
async function aggregateAtScale(ctx: BenchContext): Promise<Figures> {
  const account = await createAccount(ctx.prisma, { name: 'Bench usage at scale', role: 'developer' });
  const until = new Date();
  until.setUTCHours(0, 0, 0, 0);
  const sizes = {
    customers: AGGREGATE_CUSTOMERS,
    invoices: 0,
    events: 0,
    deliveries: 0,
    usageEvents: AGGREGATE_EVENTS,
  };
  const client = new Client({ connectionString: ctx.databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    await openSeedSession(client, {
      accountId: account.account_id,
      accountName: account.name,
      seed: 'bench-usage',
      until,
      spanSeconds: 365 * 86_400,
      sizes,
    });
    await seedSupportingRows(client, sizes);
    for (const table of ['customers', 'usageEvents'] as const)
      for (let first = 1; first <= sizes[table]; first += 500_000)
        await seedChunk(client, table, first, Math.min(sizes[table], first + 499_999));
    await client.query('VACUUM ANALYZE usage_events');
    await analyzeSeededTables(client);
    // The seed's pages written back now, not by the checkpointer while the reads below are timed: the timings are
    // of a database at rest, as an account's would be, not of the seed's write-back.
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
  const seededSeconds = Math.round((Date.now() - started) / 1000);
  const meter = await ctx.prisma.meter.findFirstOrThrow({ where: { accountId: account.account_id } });
  const customers = await ctx.prisma.customer.findMany({
    where: { accountId: account.account_id, deletedAt: null },
    select: { id: true },
    orderBy: { id: 'asc' },
    take: 200,
  });
  const heaviest = await ctx.prisma.usageEvent.findFirstOrThrow({
    where: { accountId: account.account_id, id: 'ue-10' },
    select: { customerId: true },
  });
  const env = {
    DATABASE_URL: ctx.databaseUrl,
    TEMPORAL_ADDRESS: ctx.temporalAddress,
    WORKFLOW_BUNDLE: ctx.workflowBundle,
  };
  const worker = spawnTsx('subscription-worker.ts', [WORKER_TASK_QUEUE], env, true);
  let api: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    await jsonLines(worker)();
    api = await startServer('api', env);
    const port = api.port;
    const end = Math.floor(until.getTime() / 1000);
    const start = end - 30 * 86_400;
    const read = async (customer: string, byDay: boolean): Promise<number> => {
      const query = `customer=${customer}&start_time=${start}&end_time=${end}${byDay ? '&value_grouping_window=day' : ''}`;
      const at = performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/meters/${meter.id}/event-summaries?${query}`, {
        headers: { 'cc-api-key': account.api_key },
      });
      if (response.status !== 200)
        throw new Error(`event-summaries answered ${response.status}: ${await response.text()}`);
      await response.json();
      return performance.now() - at;
    };
    const heavyDaily = await timed(() => read(heaviest.customerId, true));
    const heavy = await timed(() => read(heaviest.customerId, false));
    // The others: every customer read but the heaviest, wherever its random id sorts.
    const others = customers.filter((customer) => customer.id !== heaviest.customerId);
    const typical = await timed((run) => read(others[run % others.length]!.id, false));
    const [{ count }] = (await ctx.prisma.$queryRawUnsafe<{ count: bigint }[]>(
      'SELECT count(*) FROM usage_events WHERE account_id = $1 AND customer_id = $2 AND timestamp >= $3 AND timestamp < $4',
      account.account_id,
      heaviest.customerId,
      new Date(start * 1000),
      until,
    )) as [{ count: bigint }];
    const call = apiCaller(port, account.api_key);
    const subscribed = await subscribeOnTheMeter(ctx, call, account.account_id, meter.id, until, [
      heaviest.customerId,
      others[0]!.id,
    ]);
    const [heavySubscription, typicalSubscription] = subscribed as [Subscribed, Subscribed];
    const preview = (subscription: Subscribed) => () =>
      timedGet(port, account.api_key, `/invoices/upcoming?subscription=${subscription.id}`);
    const usageToDate = (subscription: Subscribed) => () =>
      timedGet(port, account.api_key, `/subscriptions/${subscription.id}/usage`);
    const [heavyUpcoming, typicalUpcoming] = await timedInTurn(
      preview(heavySubscription),
      preview(typicalSubscription),
    );
    // The same read after the workflow's history moved (a signal it handles without changing the bill): the state is
    // asked of the worker again, as on a subscription's first read in an API process (docs/decisions.md §25).
    const heavyMoved = await withTemporal(ctx.temporalAddress, (temporal) =>
      timed(async () => {
        await historyMoved(temporal, heavySubscription.id);
        return preview(heavySubscription)();
      }),
    );
    const [heavyUsage, typicalUsage] = await timedInTurn(
      usageToDate(heavySubscription),
      usageToDate(typicalSubscription),
    );
    console.log(
      `\nusage totals at scale: ${AGGREGATE_EVENTS} events of ${AGGREGATE_CUSTOMERS} customers in one account (seeded in ${seededSeconds} s); ` +
        `a 30-day total, ${AGGREGATE_RUNS} reads each, one at a time; then the upcoming invoice and the usage to date of a ` +
        `subscription on a graduated metered price whose period holds the last ${PERIOD_DAYS_TO_DATE} days' events`,
    );
    const row = (figure: { p50: number; p99: number }) => ({ 'p50 ms': figure.p50, 'p99 ms': figure.p99 });
    console.table({
      [`heaviest customer (${count} events in the period)`]: row(heavy),
      'heaviest customer, per day': row(heavyDaily),
      'other customers': row(typical),
      [`upcoming invoice, heaviest customer (${heavySubscription.events} events, ${heavySubscription.total} tokens)`]:
        row(heavyUpcoming),
      [`upcoming invoice, a typical customer (${typicalSubscription.events} events)`]: row(typicalUpcoming),
      'upcoming invoice, heaviest customer, its history moved before each read': row(heavyMoved),
      'usage to date, heaviest customer': row(heavyUsage),
      'usage to date, a typical customer': row(typicalUsage),
    });
    return {
      'usage.total_p99_ms_heaviest': heavy.p99,
      'usage.total_p99_ms_daily_heaviest': heavyDaily.p99,
      'usage.total_p99_ms_typical': typical.p99,
      'usage.upcoming_p50_ms_heaviest': heavyUpcoming.p50,
      'usage.upcoming_p99_ms_heaviest': heavyUpcoming.p99,
      'usage.upcoming_p99_ms_typical': typicalUpcoming.p99,
      'usage.upcoming_moved_p50_ms_heaviest': heavyMoved.p50,
      'usage.upcoming_moved_p99_ms_heaviest': heavyMoved.p99,
      'usage.to_date_p99_ms_heaviest': heavyUsage.p99,
      'usage.to_date_p99_ms_typical': typicalUsage.p99,
    };
  } finally {
    api?.child.kill('SIGTERM');
    worker.kill('SIGTERM');
  }
}

/** The task queue the API starts workflows on (config.taskQueue): the bench worker polls it. */
const WORKER_TASK_QUEUE = 'billing';
/** The subscriptions' period started this many days before the seed's `until`, their clock's time. */
const PERIOD_DAYS_TO_DATE = 25;
/** A graduated price as a usage plan has them: the first 100,000 tokens at 3 cents, to 1,000,000 at 2, then 1. */
const TOKEN_TIERS = [
  { up_to: 100_000, unit_amount: 3, flat_amount: 0 },
  { up_to: 1_000_000, unit_amount: 2, flat_amount: 0 },
  { up_to: 'inf' as const, unit_amount: 1, flat_amount: 0 },
];

/** TOKEN_TIERS' amount of `quantity`, worked out here apart from the service's pricing, to check its answers. */
function graduatedAmount(quantity: number): number {
  let amount = 0;
  let below = 0;
  for (const tier of TOKEN_TIERS) {
    const top = tier.up_to === 'inf' ? quantity : Math.min(quantity, tier.up_to);
    if (top <= below) break;
    amount += (top - below) * tier.unit_amount + tier.flat_amount;
    below = top;
  }
  return amount;
}

/** AGGREGATE_RUNS reads one at a time after 5 of warm-up: p50 and p99 (ms). */
async function timed(next: (run: number) => Promise<number>): Promise<{ p50: number; p99: number }> {
  for (let run = 0; run < 5; run++) await next(run);
  const ms: number[] = [];
  for (let run = 0; run < AGGREGATE_RUNS; run++) ms.push(await next(run));
  ms.sort((a, b) => a - b);
  return { p50: roundTo(percentile(ms, 50), 1), p99: roundTo(percentile(ms, 99), 1) };
}

/** Two reads timed in turn (5 of warm-up each, then AGGREGATE_RUNS each), so neither meets the machine alone. */
async function timedInTurn(
  first: () => Promise<number>,
  second: () => Promise<number>,
): Promise<[{ p50: number; p99: number }, { p50: number; p99: number }]> {
  for (let run = 0; run < 5; run++) {
    await first();
    await second();
  }
  const [a, b] = [[] as number[], [] as number[]];
  for (let run = 0; run < AGGREGATE_RUNS; run++) {
    a.push(await first());
    b.push(await second());
  }
  const spread = (ms: number[]) => {
    ms.sort((x, y) => x - y);
    return { p50: roundTo(percentile(ms, 50), 1), p99: roundTo(percentile(ms, 99), 1) };
  };
  return [spread(a), spread(b)];
}

async function withTemporal<T>(address: string, work: (temporal: TemporalClient) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await work(temporalClient(connection));
  } finally {
    await connection.close();
  }
}

/**
 * Signals the subscription's workflow that usage was reported (its threshold check: the bench's subscriptions have
 * none, so nothing is billed) and waits until the workflow task that handled it is done: its history has grown.
 */
async function historyMoved(temporal: TemporalClient, subscriptionId: string): Promise<void> {
  const workflowId = subscriptionWorkflowId(subscriptionId);
  const described = () =>
    temporal.workflowService.describeWorkflowExecution({
      namespace: temporal.options.namespace,
      execution: { workflowId },
    });
  const before = Number((await described()).workflowExecutionInfo?.historyLength ?? 0);
  await temporal.workflow.getHandle(workflowId).signal(usageReportedSignal);
  for (;;) {
    const now = await described();
    if (!now.pendingWorkflowTask && Number(now.workflowExecutionInfo?.historyLength ?? 0) > before) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function timedGet(port: number, apiKey: string, route: string): Promise<number> {
  const at = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}${route}`, { headers: { 'cc-api-key': apiKey } });
  if (response.status !== 200) throw new Error(`GET ${route} answered ${response.status}: ${await response.text()}`);
  await response.json();
  return performance.now() - at;
}

type Call = (method: 'GET' | 'POST', route: string, body?: object) => Promise<any>;

function apiCaller(port: number, apiKey: string): Call {
  return async (method, route, body) => {
    const response = await fetch(`http://127.0.0.1:${port}${route}`, {
      method,
      headers: { 'cc-api-key': apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (response.status >= 300)
      throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(json)}`);
    return json;
  };
}

interface Subscribed {
  id: string;
  /** The customer's seeded events in the subscription's period, and their tokens. */
  events: number;
  total: number;
}

/**
 * A subscription of each of `customerIds` (seeded customers) on a graduated metered price of the seeded meter,
 * whose period started PERIOD_DAYS_TO_DATE days before `until`, read at `until`: the seeded events are all before
 * `until`, so the period holds the last PERIOD_DAYS_TO_DATE days' of them. A period cannot start in the wall
 * clock's past (a past start_date starts now), so the customers are put on a test clock (the one column, by SQL,
 * as the seed makes its rows) that starts there and is advanced to `until`. Checks that the upcoming invoice and
 * the usage to date answer the customer's events of the period, summed and priced through the tiers here.
 */
async function subscribeOnTheMeter(
  ctx: BenchContext,
  call: Call,
  accountId: string,
  meterId: string,
  until: Date,
  customerIds: string[],
): Promise<Subscribed[]> {
  const end = Math.floor(until.getTime() / 1000);
  const periodStart = end - PERIOD_DAYS_TO_DATE * 86_400;
  const clock = await call('POST', '/test-helpers/test-clocks', { frozen_time: periodStart, name: 'Usage at scale' });
  await ctx.prisma.$executeRawUnsafe(
    'UPDATE customers SET test_clock_id = $1 WHERE account_id = $2 AND id = ANY($3::text[])',
    clock.id,
    accountId,
    customerIds,
  );
  const product = await call('POST', '/products', {
    name: 'API tokens',
    currency: 'USD',
    unit_amount: 1000,
    type: 'recurring',
    recurring: { interval: 'month', interval_count: 1 },
  });
  const price = await call('POST', `/prices/${product.id}`, {
    currency: 'USD',
    type: 'recurring',
    recurring: { interval: 'month', interval_count: 1, usage_type: 'metered', meter: meterId },
    billing_scheme: 'tiered',
    tiers_mode: 'graduated',
    tiers: TOKEN_TIERS,
  });
  const subscriptions: { id: string; customer: string }[] = [];
  for (const customer of customerIds) {
    const subscription = await call('POST', '/subscriptions', {
      customer,
      items: [{ price: price.id }],
      trial_days: 0,
      start_date: periodStart,
      collection_method: 'send_invoice',
    });
    subscriptions.push({ id: subscription.id, customer });
  }
  await call('POST', `/test-helpers/test-clocks/${clock.id}/advance`, { frozen_time: end });
  while ((await call('GET', `/test-helpers/test-clocks/${clock.id}`)).status !== 'ready')
    await new Promise((resolve) => setTimeout(resolve, 200));
  const subscribed: Subscribed[] = [];
  const tokens = async (customer: string, from: Date, to: Date) => {
    const [seeded] = await ctx.prisma.$queryRawUnsafe<{ events: bigint; total: string | null }[]>(
      `SELECT count(*) AS events, sum((properties->>'tokens')::numeric)::text AS total FROM usage_events
        WHERE account_id = $1 AND customer_id = $2 AND event_name = 'api_call' AND timestamp >= $3 AND timestamp < $4`,
      accountId,
      customer,
      from,
      to,
    );
    return { events: Number(seeded!.events), total: Number(seeded!.total ?? 0) };
  };
  for (const { id, customer } of subscriptions) {
    const state = await call('GET', `/subscriptions/${id}`);
    const from = new Date(state.current_period_start * 1000);
    // The period's invoice bills its whole period; the usage to date stops at the clock's time, `until` (the seed's
    // last event is at `until` itself: on the invoice, not yet in the usage to date).
    const period = await tokens(customer, from, new Date(state.current_period_end * 1000));
    const upcoming = await call('GET', `/invoices/upcoming?subscription=${id}`);
    const usageLine = upcoming.lines.find((line: { price: string | null }) => line.price === price.id);
    const amount = graduatedAmount(period.total);
    if (state.current_period_start !== periodStart || upcoming.total !== amount || usageLine?.quantity !== period.total)
      throw new Error(
        `upcoming invoice of ${id} (period from ${state.current_period_start}, ${periodStart} expected): total ${upcoming.total}, ` +
          `usage ${usageLine?.quantity}; the seeded events make ${period.total} tokens, ${amount} cents through the tiers`,
      );
    const toDate = await tokens(customer, from, until);
    const usage = (await call('GET', `/subscriptions/${id}/usage`)).items[0];
    if (usage?.total !== toDate.total || usage?.amount !== graduatedAmount(toDate.total))
      throw new Error(
        `usage to date of ${id}: ${usage?.total} tokens, ${usage?.amount} cents; ${toDate.total} and ${graduatedAmount(toDate.total)} expected`,
      );
    subscribed.push({ id, ...period });
  }
  return subscribed;
}
