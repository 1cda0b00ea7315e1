import type { ChildProcess } from 'node:child_process';
import { Pool } from 'pg';
import { createAccount } from '../src/accounts/account.service';
import { startServer } from './customers';
import { percentile, ratio, roundTo, type BenchContext, type Figures } from './support';

// Usage ingestion (docs/api.md "Usage-based billing"): batches of 1,000 events through POST /usage-events
// beside the bare statement, the same batches written by `pg` with the same multi-row INSERT into a table
// made like usage_events, in the same run, in alternating rounds; then every id counted once.

const BATCH = 1000;
const LANES = Number(process.env.BENCH_USAGE_LANES ?? 4);
const ROUNDS = Number(process.env.BENCH_USAGE_ROUNDS ?? 4);
const BATCHES_PER_ROUND = Number(process.env.BENCH_USAGE_BATCHES ?? 20);

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

/** `batches` batches over LANES concurrent lanes: events/s and each batch's milliseconds. */
async function run(
  batches: number,
  send: (batch: number) => Promise<void>,
): Promise<{ seconds: number; ms: number[] }> {
  const ms: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      for (let batch = next++; batch < batches; batch = next++) {
        const at = performance.now();
        await send(batch);
        ms.push(performance.now() - at);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, ms };
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
  const pool = new Pool({ connectionString: ctx.databaseUrl, max: LANES });
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
    const totals = { api: { seconds: 0, ms: [] as number[] }, bare: { seconds: 0, ms: [] as number[] } };
    for (let round = 0; round < ROUNDS; round++) {
      const base = await run(BATCHES_PER_ROUND, (batch) => bare(`r${round}`, batch));
      const ours = await run(BATCHES_PER_ROUND, (batch) => viaApi(`r${round}`, batch));
      totals.bare.seconds += base.seconds;
      totals.bare.ms.push(...base.ms);
      totals.api.seconds += ours.seconds;
      totals.api.ms.push(...ours.ms);
    }
    // A retried round: every id already there, none counted again.
    await run(BATCHES_PER_ROUND, (batch) => viaApi('r0', batch));
    const sent = (ROUNDS * BATCHES_PER_ROUND + LANES * 2) * BATCH;
    const [{ count }] = (
      await pool.query<{ count: string }>('SELECT count(*) FROM usage_events WHERE account_id = $1', [
        account.account_id,
      ])
    ).rows as [{ count: string }];
    const events = ROUNDS * BATCHES_PER_ROUND * BATCH;
    const apiRate = events / totals.api.seconds;
    const bareRate = events / totals.bare.seconds;
    const p99 = (ms: number[]) =>
      roundTo(
        percentile(
          [...ms].sort((a, b) => a - b),
          99,
        ),
        1,
      );
    console.log(
      `\nusage events: ${ROUNDS} alternating rounds of ${BATCHES_PER_ROUND} batches of ${BATCH}, ${LANES} lanes, after a warm-up`,
    );
    console.table({
      bare_insert: { 'events/s': Math.round(bareRate), 'batch p99 ms': p99(totals.bare.ms) },
      api: { 'events/s': Math.round(apiRate), 'batch p99 ms': p99(totals.api.ms) },
    });
    console.log(
      `usage api/bare: throughput ${ratio(apiRate, bareRate)}; ${sent} distinct ids sent, ${count} rows (a retried round included)`,
    );
    return {
      'usage.ingest_ratio': roundTo(apiRate / bareRate),
      'usage.api_events_per_s': Math.round(apiRate),
      'usage.bare_events_per_s': Math.round(bareRate),
      'usage.batch_p99_ms': p99(totals.api.ms),
      'usage.events_miscounted': Math.abs(sent - Number(count)),
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await pool.end();
  }
}
