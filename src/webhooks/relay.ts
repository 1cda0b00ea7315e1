import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';
import type { Db } from '../db/prisma';
import { withSqlSession } from '../db/sql-transaction';
import { notificationListener } from '../db/notification-listener';
import { EVENTS_CHANNEL, listenForEvents } from '../lib/event.records';
import { logger as defaultLogger, type Logger } from '../http/logger';
import { forEachLimited } from '../lib/concurrency';
import { newId } from '../lib/ids';
import type { EventConsumer } from '../lib/events';
import { deliveryDisplay } from '../temporal';
import { BILLING_ACCOUNT_ID, BILLING_STATUS } from '../temporal';
import type { deliverWebhook } from '../../workflows/webhook-delivery';
import { drawRetryDelays } from '../../workflows/webhook-schedule';
import { countWebhookAttempt } from './attempt-metrics';
import { attemptDelivery, sendWindowMs, type WebhookAttemptResult } from './delivery-attempt.service';
import { envelopeOf } from './envelope';
import { sendClaimsTogether, type SendClaimer } from './send-claims';
import {
  claimEvents,
  eventsOfTypes,
  eventsWithDestinations,
  insertDeliveries,
  markDispatched,
  releaseClaims,
  type DeliveryKey,
} from './relay.records';
import { WEBHOOK_TIMEOUT_MS } from './sender';
import { webhookWorkflowId } from './workflow-id';

export { webhookWorkflowId };

/** How long a batch waits for an attempt 1 (a slow destination must not hold up the others'). */
const FIRST_ATTEMPT_WAIT_MS = 2_000;

/** src/lib/events.ts notifies this channel with the event id when an event is written. */
export { EVENTS_CHANNEL };

export interface RelayOptions {
  prisma: Db;
  databaseUrl: string;
  temporal: Client;
  taskQueue: string;
  /** Events per transaction. */
  batchSize?: number;
  /** Fallback poll when a notification is missed (listener reconnecting, NOTIFY lost). */
  pollIntervalMs?: number;
  /**
   * Ask for eager workflow starts: the server hands the first workflow task straight back to a worker
   * sharing the client's NativeConnection (the worker process) instead of going through the queue.
   */
  eagerStart?: boolean;
  /** Workflow starts in flight at once. */
  startConcurrency?: number;
  /** Relay only these accounts' events: test files sharing one database each relay their own accounts. */
  accountIds?: () => readonly string[];
  /** The workflow service's time (a time-skipping test server's): attempt 1 is scheduled at it. The wall clock unless given. */
  temporalNow?: () => Promise<number>;
  /** Per-attempt HTTP timeout (decisions.md §10: 10 s). */
  httpTimeoutMs?: number;
  /** How long a batch waits for an attempt 1 before it starts the workflow without its result (2 s). */
  firstAttemptWaitMs?: number;
  /** The worker runtime's meter, which counts attempt 1 as the attempt activity counts the others. */
  metricMeter?: MetricMeter;
  /**
   * What else is done with the events before they are marked dispatched (the emails they call for,
   * docs/decisions.md §30): handed the batch's events of its types, again after a crash before the mark.
   */
  consumers?: readonly EventConsumer[];
  /** false: no LISTEN and no polling, only runOnce() (tests that drive the relay by hand). */
  background?: boolean;
  logger?: Logger;
}

export interface Relay {
  /** Dispatches every event waiting now; answers how many events it dispatched. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** What starting one delivery needs from its relay. */
interface DeliveryStarter {
  options: RelayOptions;
  httpTimeoutMs: number;
  firstAttemptWaitMs: number;
  log: Logger;
  /** Attempts 1 still running after the relay stopped waiting for them (stop() waits for them). */
  lateAttempts: Set<Promise<unknown>>;
  /** The claims of the attempts 1 in flight, asked together (send-claims.ts). */
  claim: SendClaimer;
}

/**
 * Attempt 1 here, then the delivery's workflow, started with its result and the retry schedule drawn
 * for it: a delivery answered at once costs the workflow one task that completes it, not a local
 * activity. Again after a crash (the batch was not committed): the attempt recorded then is
 * answered, nothing is sent again, and a workflow already started stays as it is. An attempt still
 * unanswered after `firstAttemptWaitMs` (a slow destination) is not waited for, so that it holds up
 * no other delivery: the workflow starts without its result, waits out the send's window (the HTTP
 * timeout and the record's margin) and then makes attempt 1 itself, which finds the relay's recorded
 * (or still in flight, and waits for it) and sends nothing again.
 */
async function startDelivery(starter: DeliveryStarter, delivery: DeliveryKey): Promise<void> {
  const { options, httpTimeoutMs, firstAttemptWaitMs, log, lateAttempts, claim } = starter;
  const { prisma, temporal, taskQueue } = options;
  const retryDelaysMs = drawRetryDelays(Math.random);
  const scheduledAt = options.temporalNow ? await options.temporalNow() : Date.now();
  const attempt = attemptDelivery(
    prisma,
    { deliveryId: delivery.id, attempt: 1, scheduledAt, retryDelayMs: retryDelaysMs[0]! },
    httpTimeoutMs,
    log,
    claim,
  ).then((result) => {
    if (result !== 'missing' && options.metricMeter) countWebhookAttempt(options.metricMeter, result, { taskQueue });
    return result;
  });
  let timer: NodeJS.Timeout | undefined;
  const first = await Promise.race([
    attempt,
    new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), firstAttemptWaitMs))),
  ]);
  clearTimeout(timer);
  if (first === 'late') {
    const late = attempt.catch((error: unknown) =>
      log.warn({ err: error, deliveryId: delivery.id }, "relay's attempt 1 failed; the workflow makes it"),
    );
    lateAttempts.add(late);
    void late.finally(() => lateAttempts.delete(late));
  }
  // Its destination was deleted since the batch read it (the row went with it): nothing to deliver.
  if (first === 'missing') return;
  const input = {
    deliveryId: delivery.id,
    eventId: delivery.eventId,
    destinationId: delivery.destinationId,
    retryDelaysMs,
  };
  try {
    await temporal.workflow.start<typeof deliverWebhook>('deliverWebhook', {
      workflowId: webhookWorkflowId(delivery.eventId, delivery.destinationId),
      taskQueue,
      args: [
        first === 'late'
          ? { ...input, firstAttemptAfterMs: sendWindowMs(httpTimeoutMs) }
          : { ...input, firstAttempt: handedOver(first, scheduledAt) },
      ],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
      // Set here rather than upserted by the workflow: one visibility write less per delivery.
      typedSearchAttributes: [
        { key: BILLING_ACCOUNT_ID, value: delivery.accountId },
        { key: BILLING_STATUS, value: first === 'late' ? 'pending' : first.status },
      ],
      requestEagerStart: options.eagerStart ?? false,
      ...deliveryDisplay({
        accountId: delivery.accountId,
        deliveryId: delivery.id,
        eventId: delivery.eventId,
        destinationId: delivery.destinationId,
        retryDelaysMs,
      }),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/**
 * Attempt 1 as the workflow's input carries it: with its end, from which the workflow counts the
 * first retry's delay however late its first task runs (docs/decisions.md §10).
 */
function handedOver(first: WebhookAttemptResult, scheduledAt: number) {
  return { ...first, scheduledAt, endedAt: first.endedAt ?? scheduledAt + first.durationMs };
}

/**
 * The outbox relay: takes committed events with no `dispatched_at`, in `seq` order, and starts one
 * `deliverWebhook` workflow per (event, destination active at dispatch). Everything it does is
 * repeatable: delivery rows are unique per (event, destination) and the workflow id
 * `webhook:<event>:<destination>` cannot start twice, so a relay that runs twice, or two relays, or a
 * crash between steps, never starts a second delivery of an event to a destination; an attempt is
 * sent twice only when the process sending it stops before recording it (docs/decisions.md §10). It
 * wakes on the NOTIFY sent with each event and also polls.
 */
export function startRelay(options: RelayOptions): Relay {
  const { prisma } = options;
  const batchSize = options.batchSize ?? 100;
  const startConcurrency = options.startConcurrency ?? 32;
  const httpTimeoutMs = options.httpTimeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const firstAttemptWaitMs = options.firstAttemptWaitMs ?? FIRST_ATTEMPT_WAIT_MS;
  const log = options.logger ?? defaultLogger;

  const starter: DeliveryStarter = {
    options,
    httpTimeoutMs,
    firstAttemptWaitMs,
    log,
    lateAttempts: new Set(),
    claim: sendClaimsTogether(prisma),
  };

  /**
   * One batch, in no transaction: the events are claimed (advisory locks of one pooled connection,
   * which another relay skips), their delivery rows written and committed, attempt 1 made and the
   * workflows started, and only then the events marked dispatched and the claims released. A crash
   * anywhere before the mark leaves the events to dispatch again, which finds the rows, the attempts
   * and the workflows already there: nothing is lost, and only an attempt 1 whose send was cut off
   * before its record is sent again.
   */
  async function dispatchBatch(): Promise<number> {
    const accountIds = options.accountIds?.();
    if (accountIds && accountIds.length === 0) return 0;
    return withSqlSession(
      prisma,
      async (session) => {
        const eventIds = await claimEvents(session, batchSize, accountIds);
        if (eventIds.length === 0) return 0;
        const pairs = await eventsWithDestinations(session, eventIds);
        const rows = pairs.map((pair) => ({
          id: newId('webhookDelivery'),
          ...pair,
          payload: JSON.stringify(
            envelopeOf({ id: pair.eventId, type: pair.type, createdAt: pair.createdAt, data: pair.data }),
          ),
        }));
        // Committed before their workflows read them.
        const deliveries = await insertDeliveries(session, rows, eventIds);
        await forEachLimited(deliveries, startConcurrency, (delivery) => startDelivery(starter, delivery));
        for (const consumer of options.consumers ?? []) {
          const events = await eventsOfTypes(session, eventIds, consumer.types);
          if (events.length > 0) await consumer.consume(events);
        }
        await markDispatched(session, eventIds);
        return eventIds.length;
      },
      releaseClaims,
    );
  }

  async function runOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const dispatched = await dispatchBatch();
      total += dispatched;
      if (dispatched < batchSize) return total;
    }
  }

  // One pass at a time; wake-ups during a pass ask for one more pass.
  let stopped = false;
  let pass: Promise<void> | null = null;
  let passRequested = false;
  function wake(): void {
    if (stopped) return;
    if (pass) {
      passRequested = true;
      return;
    }
    pass = (async () => {
      do {
        passRequested = false;
        try {
          await runOnce();
        } catch (error) {
          log.error({ err: error }, 'webhook relay pass failed; the next poll retries');
        }
      } while (passRequested && !stopped);
    })().finally(() => {
      pass = null;
    });
  }

  // LISTEN for new events: each wakes the relay, and so does each LISTEN (events written while nobody listened).
  const listener = notificationListener({
    databaseUrl: options.databaseUrl,
    name: 'webhook relay',
    log,
    listen: listenForEvents,
    onNotification: wake,
    onListening: wake,
  });

  let poll: NodeJS.Timeout | undefined;
  if (options.background !== false) {
    void listener.start();
    poll = setInterval(wake, options.pollIntervalMs ?? 1000);
    wake();
  }

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(poll);
      await listener.close();
      await pass;
      await Promise.all(starter.lateAttempts);
    },
  };
}
