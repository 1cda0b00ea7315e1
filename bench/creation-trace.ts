// What one charged POST /subscriptions costs, counted rather than timed (docs/performance.md): the
// database statements of the API and of the worker, the API's calls to Temporal, and what the workflow's
// history holds (its tasks and activities), for a creation after a warm-up, on the dev engine.
// Usage: npm run bench:trace   (BENCH_TRACE_CREATIONS, default 20: the counts are averaged over them;
// BENCH_TRACE_PROFILE=file.cpuprofile: a CPU profile of the main thread over the counted creations only)
import fs from 'node:fs';
import http from 'node:http';
import inspector from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createApp } from '../src/app';
import { createPrisma, poolOf } from '../src/db/prisma';
import { createAccount } from '../src/accounts/account.service';
import { registeredGateways } from '../src/gateway-registrations';
import { createWorker } from '../src/temporal/worker';
import { temporalClient } from '../src/temporal/client';
import { subscriptionWorkflowId } from '../workflows/subscription-messages';
import { startBenchServices } from './support';

const CREATIONS = Number(process.env.BENCH_TRACE_CREATIONS ?? 20);
const SCHEDULED = Boolean(process.env.BENCH_TRACE_SCHEDULED);

/** Statements by the first words of their text (or their prepared name), per process role. */
const statements = new Map<string, number>();
/** With BENCH_TRACE_SEQUENCE, every statement in order (printed for the last creation). */
const sequence: string[] = [];
let counting = false;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const [first] = args as [string | { name?: string; text?: string }];
    const text = typeof first === 'string' ? first : (first.name ?? first.text ?? '?');
    const role = (this as unknown as { traceRole?: string }).traceRole ?? '?';
    const key = `${role}: ${text.replace(/\s+/g, ' ').trim().slice(0, 60)}`;
    statements.set(key, (statements.get(key) ?? 0) + 1);
    if (process.env.BENCH_TRACE_SEQUENCE) sequence.push(key);
  }
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

async function main(): Promise<void> {
  process.env.RATE_LIMIT_PER_SECOND ??= '1000000';
  process.env.LOG_LEVEL ??= 'silent';
  const services = await startBenchServices('dev');
  const temporalCalls = new Map<string, number>();
  try {
    const connection = await Connection.connect({ address: services.temporalAddress });
    // Every call of the API's client to the workflow service, by method.
    const service = connection.workflowService as unknown as Record<string, unknown>;
    for (const key of Object.keys(Object.getPrototypeOf(service)).concat(Object.keys(service))) {
      const method = service[key];
      if (typeof method !== 'function' || key === 'constructor') continue;
      service[key] = (...args: unknown[]) => {
        if (counting) temporalCalls.set(key, (temporalCalls.get(key) ?? 0) + 1);
        return (method as (...a: unknown[]) => unknown).apply(service, args);
      };
    }
    const prisma = createPrisma(services.databaseUrl);
    const workerPrisma = createPrisma(services.databaseUrl);
    for (const [role, db] of [
      ['api', prisma],
      ['worker', workerPrisma],
    ] as const)
      poolOf(db)!.on('connect', (client) => Object.assign(client, { traceRole: role }));
    const server = http.createServer(createApp({ prisma, temporal: temporalClient(connection) }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const nativeConnection = await NativeConnection.connect({ address: services.temporalAddress });
    const worker = await createWorker({
      prisma: workerPrisma,
      gateways: registeredGateways(workerPrisma),
      connection: nativeConnection,
      taskQueue: 'billing',
      workflowBundle: { codePath: services.workflowBundle },
    });
    const running = worker.run();
    const account = await createAccount(services.prisma, { name: 'Trace', role: 'developer' });
    const call = async (method: string, route: string, body?: object): Promise<any> => {
      const response = await fetch(`${base}${route}`, {
        method,
        headers: { 'cc-api-key': account.api_key, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = await response.json();
      if (response.status >= 300) throw new Error(`${route} ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    const customer = await call('POST', '/customers', { name: 'Trace Customer' });
    await call('POST', '/payment-methods', {
      type: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' },
      billing_details: { name: 'Trace Customer' },
      customer: customer.id,
    });
    const product = await call('POST', '/products', {
      name: 'Trace plan',
      currency: 'USD',
      unit_amount: 1000,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
    });
    const subscribe = () =>
      call('POST', '/subscriptions', {
        customer: customer.id,
        items: [{ price: product.default_price, quantity: 1 }],
        trial_days: 0,
        // BENCH_TRACE_SCHEDULED=1: a creation starting in a year (nothing billed, nothing charged) instead.
        start_date: Math.floor(Date.now() / 1000) + (SCHEDULED ? 365 * 86_400 : 0),
      });
    for (let i = 0; i < 5; i += 1) await subscribe(); // warm-up: connections, prepared statements, the worker's bundle
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const profiler = process.env.BENCH_TRACE_PROFILE ? new inspector.Session() : null;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    counting = true;
    const created: string[] = [];
    for (let i = 0; i < CREATIONS; i += 1) {
      sequence.length = 0;
      created.push((await subscribe()).id);
    }
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // each first workflow task done
    counting = false;
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      fs.writeFileSync(process.env.BENCH_TRACE_PROFILE!, JSON.stringify(profile));
      profiler.disconnect();
    }
    const client = temporalClient(connection);
    const activityTypes = new Map<string, number>();
    const history = { workflowTasks: 0, activities: 0, localActivities: 0, timers: 0, events: 0 };
    for (const id of created) {
      const { events } = await client.workflow.getHandle(subscriptionWorkflowId(id)).fetchHistory();
      for (const event of events ?? []) {
        history.events += 1;
        if (event.workflowTaskCompletedEventAttributes) history.workflowTasks += 1;
        if (event.activityTaskScheduledEventAttributes) history.activities += 1;
        if (event.markerRecordedEventAttributes) history.localActivities += 1;
        const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
        if (type) activityTypes.set(type, (activityTypes.get(type) ?? 0) + 1);
        if (event.timerStartedEventAttributes) history.timers += 1;
      }
    }
    const per = (n: number) => Math.round((n / CREATIONS) * 10) / 10;
    console.log(
      `\nOne ${SCHEDULED ? 'scheduled' : 'charged'} POST /subscriptions, averaged over ${CREATIONS} (API and worker in one process here):`,
    );
    console.log('Database statements (API and worker):');
    console.table(
      Object.fromEntries(
        [...statements.entries()].sort((a, b) => b[1] - a[1]).map(([text, count]) => [text, { each: per(count) }]),
      ),
    );
    const total = [...statements.values()].reduce((sum, n) => sum + n, 0);
    if (process.env.BENCH_TRACE_SEQUENCE)
      console.log(`The last creation's statements in order:\n  ${sequence.join('\n  ')}`);
    console.log(`statements in all: ${per(total)} per creation`);
    console.log("The API's calls to Temporal:");
    console.table(
      Object.fromEntries([...temporalCalls.entries()].map(([name, count]) => [name, { each: per(count) }])),
    );
    console.log('Each workflow history:', Object.fromEntries(Object.entries(history).map(([k, v]) => [k, per(v)])));
    if (activityTypes.size)
      console.log('activities:', Object.fromEntries([...activityTypes].map(([k, v]) => [k, per(v)])));
    worker.shutdown();
    await running;
    server.close();
    await connection.close();
    await nativeConnection.close();
  } finally {
    await services.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
