import pg from 'pg';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from '../db/prisma';
import { logger as defaultLogger, type Logger } from '../http/logger';
import { forEachLimited } from '../lib/concurrency';
import { newId } from '../lib/ids';
import { BILLING_ACCOUNT_ID, BILLING_STATUS } from '../temporal/search-attributes';
import type { deliverWebhook } from '../../workflows/webhook-delivery';
import { envelopeOf } from './envelope';
import { webhookWorkflowId } from './workflow-id';

export { webhookWorkflowId };

/** src/lib/events.ts notifies this channel with the event id when an event is written. */
export const EVENTS_CHANNEL = 'billing_events';

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
  /** false: no LISTEN and no polling, only runOnce() (tests that drive the relay by hand). */
  background?: boolean;
  logger?: Logger;
}

export interface Relay {
  /** Dispatches every event waiting now; answers how many events it dispatched. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

interface DeliveryKey {
  id: string;
  accountId: string;
  eventId: string;
  destinationId: string;
}

/**
 * The outbox relay: takes committed events with no `dispatched_at`, in `seq` order, and starts one
 * `deliverWebhook` workflow per (event, destination active at dispatch). Everything it does is
 * repeatable: delivery rows are unique per (event, destination) and the workflow id
 * `webhook:<event>:<destination>` cannot start twice, so a relay that runs twice, or two relays, or a
 * crash between steps, never delivers an event twice to a destination. It wakes on the NOTIFY
 * sent with each event and also polls.
 */
export function startRelay(options: RelayOptions): Relay {
  const { prisma, temporal, taskQueue } = options;
  const batchSize = options.batchSize ?? 100;
  const startConcurrency = options.startConcurrency ?? 32;
  const log = options.logger ?? defaultLogger;

  async function startDelivery(delivery: DeliveryKey): Promise<void> {
    try {
      await temporal.workflow.start<typeof deliverWebhook>('deliverWebhook', {
        workflowId: webhookWorkflowId(delivery.eventId, delivery.destinationId),
        taskQueue,
        args: [{ deliveryId: delivery.id, eventId: delivery.eventId, destinationId: delivery.destinationId }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        // Set here rather than upserted by the workflow: one visibility write less per delivery.
        typedSearchAttributes: [
          { key: BILLING_ACCOUNT_ID, value: delivery.accountId },
          { key: BILLING_STATUS, value: 'pending' },
        ],
        requestEagerStart: options.eagerStart ?? false,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  async function dispatchBatch(): Promise<number> {
    const accountIds = options.accountIds?.();
    if (accountIds && accountIds.length === 0) return 0;
    return prisma.$transaction(
      async (tx) => {
        const locked = accountIds
          ? await tx.$queryRaw<{ id: string }[]>`
              SELECT id FROM events WHERE dispatched_at IS NULL AND account_id = ANY(${accountIds as string[]})
              ORDER BY seq LIMIT ${batchSize} FOR UPDATE SKIP LOCKED`
          : await tx.$queryRaw<{ id: string }[]>`
              SELECT id FROM events WHERE dispatched_at IS NULL
              ORDER BY seq LIMIT ${batchSize} FOR UPDATE SKIP LOCKED`;
        if (locked.length === 0) return 0;
        const eventIds = locked.map((row) => row.id);
        const events = await tx.event.findMany({ where: { id: { in: eventIds } }, orderBy: { seq: 'asc' } });
        const destinations = await tx.webhookDestination.findMany({
          where: { accountId: { in: [...new Set(events.map((event) => event.accountId))] }, active: true, deletedAt: null },
          select: { id: true, accountId: true },
        });
        const rows = events.flatMap((event) =>
          destinations
            .filter((destination) => destination.accountId === event.accountId)
            .map((destination) => ({
              id: newId('webhookDelivery'),
              accountId: event.accountId,
              eventId: event.id,
              eventType: event.type,
              destinationId: destination.id,
              payload: envelopeOf(event) as object,
            })),
        );
        if (rows.length > 0) {
          // Outside the batch transaction, so the rows are committed before their workflows read them.
          await prisma.webhookDelivery.createMany({ data: rows, skipDuplicates: true });
        }
        // Rows left by an earlier run that stopped half-way are started too (a second start is a no-op).
        const deliveries = await prisma.webhookDelivery.findMany({
          where: { eventId: { in: eventIds } },
          select: { id: true, accountId: true, eventId: true, destinationId: true },
        });
        await forEachLimited(deliveries, startConcurrency, startDelivery);
        await tx.$executeRaw`UPDATE events SET dispatched_at = clock_timestamp() WHERE id = ANY(${eventIds})`;
        return events.length;
      },
      { maxWait: 10_000, timeout: 120_000 },
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

  let listener: pg.Client | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;
  async function listen(): Promise<void> {
    if (stopped) return;
    const client = new pg.Client({ connectionString: options.databaseUrl });
    listener = client;
    const reconnect = () => {
      if (stopped || listener !== client || reconnectTimer) return;
      listener = null;
      client.end().catch(() => undefined);
      reconnectTimer = setTimeout(() => {
        reconnectTimer = null;
        void listen();
      }, 1000);
    };
    client.on('notification', wake);
    client.on('error', (error) => {
      log.warn({ err: error }, 'webhook relay listener lost; reconnecting');
      reconnect();
    });
    client.on('end', reconnect);
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      wake(); // events written while nobody listened
    } catch (error) {
      log.warn({ err: error }, 'webhook relay cannot listen; polling until it can');
      reconnect();
    }
  }

  let poll: NodeJS.Timeout | undefined;
  if (options.background !== false) {
    void listen();
    poll = setInterval(wake, options.pollIntervalMs ?? 1000);
    wake();
  }

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(poll);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const client = listener;
      listener = null;
      await client?.end().catch(() => undefined);
      await pass;
    },
  };
}
