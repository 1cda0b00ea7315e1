import type { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createAccount } from '../src/accounts/account.service';
import { recordEvent } from '../src/lib/events';
import { sqlTransaction } from '../src/db/sql-transaction';
import { createDestination } from '../src/webhooks/destination.service';
import { startRelay } from '../src/webhooks/relay';
import { createPrisma } from '../src/db/prisma';
import { registeredGateways } from '../src/gateway-registrations';
import { createWorker, workerPoolSize } from '../src/temporal/worker';
import { startWebhookReceiver } from '../test/support/webhook-receiver';
import {
  bareWorkflowStarts,
  cpuPerJob,
  descendantsCpuMs,
  percentile,
  ratio,
  roundTo,
  runLanes as runTimedLanes,
  type BenchContext,
  type Figures,
} from './support';
import { temporalClient } from '../src/temporal/client';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 300);
const WRITERS = 10;
const TASK_QUEUE = 'bench-webhooks';

/**
 * Until every event of the account is dispatched and no delivery workflow on the bench's queue runs: the
 * burst's CPU then holds its workflows' tasks too (polled, 50 ms apart; visibility lags a little).
 */
async function settled(temporal: Client, ctx: BenchContext, accountId: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const [{ waiting }] = await ctx.prisma.$queryRaw<[{ waiting: number }]>`
      SELECT count(*)::int AS waiting FROM events WHERE account_id = ${accountId} AND dispatched_at IS NULL`;
    if (waiting === 0) {
      const { count } = await temporal.workflow.count(`TaskQueue = '${TASK_QUEUE}' AND ExecutionStatus = 'Running'`);
      if (count === 0) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Each job's duration in ms, sorted. */
const runLanes = async (total: number, lanes: number, job: (index: number) => Promise<void>) =>
  (await runTimedLanes(total, lanes, job)).durations;

/**
 * Events written to the outbox and delivered through the relay and one `deliverWebhook` workflow
 * each, to a receiver on loopback; beside it, bare workflow starts on the same Temporal server (the
 * ratio the issue judges) and bare HTTP POSTs of the same body to the same receiver.
 */
export async function benchWebhooks(ctx: BenchContext): Promise<Figures> {
  process.env.WEBHOOK_ALLOW_PRIVATE = 'true';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  // CPU per job of each process (this one: writers, relay, worker, receiver; Temporal; PostgreSQL), steadier
  // than the rates on a machine others load.
  const cpuBeforeBare = descendantsCpuMs();
  const bareStarts = await bareWorkflowStarts(ctx.temporalAddress, EVENTS);
  const cpuAfterBare = descendantsCpuMs();
  const receiver = await startWebhookReceiver({ reply: 200 });
  const account = await createAccount(ctx.prisma, { name: 'Bench webhooks', role: 'developer' });
  await createDestination(ctx.prisma, account.account_id, { url: `${receiver.url}/hooks` });

  // As in the worker process: worker and relay on a pool of their own (the writers stand for the API),
  // the relay's client on the worker's connection, its starts not eager (src/cli/worker.ts).
  const workerPrisma = createPrisma(ctx.databaseUrl, workerPoolSize());
  const nativeConnection = await NativeConnection.connect({ address: ctx.temporalAddress });
  const worker = await createWorker({
    prisma: workerPrisma,
    gateways: registeredGateways(workerPrisma),
    connection: nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: { codePath: ctx.workflowBundle },
  });
  const running = worker.run();
  const temporal = temporalClient(nativeConnection);
  const relay = startRelay({
    prisma: workerPrisma,
    databaseUrl: ctx.databaseUrl,
    temporal,
    taskQueue: TASK_QUEUE,
    eagerStart: false,
  });

  const writeEvents = (count: number) =>
    runLanes(count, WRITERS, async (index) => {
      await sqlTransaction(ctx.prisma, (tx) =>
        recordEvent(tx, account.account_id, 'customer.updated', { id: `cus_bench${index}`, name: 'Bench' }),
      );
    });

  try {
    await writeEvents(20); // warm-up: bundle loaded, caches, connections
    await receiver.waitFor(20, { timeoutMs: 60_000 });
    const warm = receiver.received.length;

    // Throughput: a burst of events, delivered as fast as the pipeline goes.
    const cpuBeforeBurst = descendantsCpuMs();
    const started = Date.now();
    await writeEvents(EVENTS);
    const burst = (await receiver.waitFor(warm + EVENTS, { timeoutMs: 120_000 }).catch(() => receiver.received)).slice(
      warm,
    );
    await settled(temporal, ctx, account.account_id);
    const cpuAfterBurst = descendantsCpuMs();
    const eventRate = EVENTS / ((Math.max(...burst.map((d) => d.at)) - started) / 1000);

    // Latency: events at a steady rate well under that throughput, so queueing does not dominate.
    const paced = Math.min(60, EVENTS);
    const pacedRate = Math.max(1, Math.min(10, Math.floor(eventRate / 2)));
    for (let index = 0; index < paced; index++) {
      await sqlTransaction(ctx.prisma, (tx) =>
        recordEvent(tx, account.account_id, 'customer.updated', { id: `cus_paced${index}`, name: 'Bench' }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1000 / pacedRate));
    }
    const steady = (
      await receiver.waitFor(warm + EVENTS + paced, { timeoutMs: 60_000 }).catch(() => receiver.received)
    ).slice(warm + EVENTS);
    // Lost: events written and never delivered by now (each event once: duplicates do not make up for a loss).
    const delivered = new Set(receiver.received.slice(warm).map((request) => request.headers['cc-event-id']));
    const lost = EVENTS + paced - delivered.size;
    const latencies = steady.map((d) => d.at - Date.parse(d.json.createdAt)).sort((a, b) => a - b);

    const body = burst[0]!.body;
    const postStarted = Date.now();
    const posts = await runLanes(EVENTS, WRITERS, async () => {
      const response = await fetch(`${receiver.url}/bare`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await response.text();
    });
    const postRate = EVENTS / ((Date.now() - postStarted) / 1000);

    console.log(
      `\nWebhooks: ${EVENTS} events at once from ${WRITERS} writers, then ${paced} at ${pacedRate}/s; one workflow per delivery to a loopback receiver`,
    );
    console.table({
      'bare workflow start': {
        'per s': Math.round(bareStarts.perSecond),
        'p50 ms': +bareStarts.p50.toFixed(1),
        'p99 ms': +bareStarts.p99.toFixed(1),
      },
      'bare POST': {
        'per s': Math.round(postRate),
        'p50 ms': +percentile(posts, 50).toFixed(1),
        'p99 ms': +percentile(posts, 99).toFixed(1),
      },
      'event -> delivery': {
        'per s': Math.round(eventRate),
        'p50 ms': percentile(latencies, 50),
        'p99 ms': percentile(latencies, 99),
      },
    });
    console.log(
      `webhooks delivered/bare POST: throughput ${ratio(eventRate, postRate)}, p50 latency ${ratio(percentile(latencies, 50), percentile(posts, 50))}, ` +
        `p99 latency ${ratio(percentile(latencies, 99), percentile(posts, 99))}`,
    );
    console.log(
      `webhooks delivered/bare workflow starts: ${ratio(eventRate, bareStarts.perSecond)}; lost ${lost} of ${EVENTS + paced}`,
    );
    console.log(
      `CPU ms per bare start: ${cpuPerJob(cpuBeforeBare, cpuAfterBare, EVENTS + 20)}; per delivery of the burst (until its workflows closed): ${cpuPerJob(cpuBeforeBurst, cpuAfterBurst, EVENTS)}`,
    );
    return {
      webhook_events_per_s: Math.round(eventRate),
      webhook_delivery_ratio: roundTo(eventRate / bareStarts.perSecond),
      webhook_lost: lost,
    };
  } finally {
    await relay.stop();
    worker.shutdown();
    await running;
    await nativeConnection.close();
    await workerPrisma.$disconnect();
    await receiver.close();
  }
}
