import type { Client } from '@temporalio/client';
import type { Db } from '../../src/db/prisma';
import { recordEvent } from '../../src/lib/events';
import { createDestination } from '../../src/webhooks/destination.service';
import { startRelay, type Relay, type RelayOptions } from '../../src/webhooks/relay';
import { webhookWorkflowId } from '../../src/webhooks/workflow-id';
import { webhookStateQuery, type WebhookDeliveryState } from '../../workflows/webhook-delivery';
import { createTestAccount, startTestApp, startTestWorker, type TestApp } from './harness';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

/** Loopback receivers are private addresses: allow them, as development and test setups do. */
export function allowPrivateWebhookTargets(): void {
  process.env.WEBHOOK_ALLOW_PRIVATE = 'true';
}

/** An account with one destination, through the services (no HTTP). */
export async function accountWithDestination(prisma: Db, url: string) {
  const account = await createTestAccount(prisma, { name: 'Webhook account' });
  const destination = await createDestination(prisma, account.accountId, { url });
  return { ...account, destination };
}

/** Writes one event the way every service does: in a transaction, through recordEvent. */
export function writeEvent(
  prisma: Db,
  accountId: string,
  type = 'customer.created',
  data: object = { id: 'cus_test', name: 'Ada' },
) {
  return prisma.$transaction((tx) => recordEvent(tx, accountId, type, data));
}

/** A relay driven by hand (runOnce), limited to the given accounts so test files sharing the database don't interfere. */
export function manualRelay(
  prisma: Db,
  temporal: Client,
  taskQueue: string,
  accountIds: () => readonly string[],
  options: Pick<RelayOptions, 'temporalNow' | 'metricMeter' | 'httpTimeoutMs' | 'firstAttemptWaitMs'> = {},
): Relay {
  return startRelay({
    prisma,
    databaseUrl: process.env.DATABASE_URL!,
    temporal,
    taskQueue,
    accountIds,
    background: false,
    ...options,
  });
}

export function deliveryHandle(temporal: Client, eventId: string, destinationId: string) {
  return temporal.workflow.getHandle(webhookWorkflowId(eventId, destinationId));
}

/** The delivery's workflow once it exists: the relay sends attempt 1, then starts it with the result. */
export async function startedDelivery(temporal: Client, eventId: string, destinationId: string) {
  const handle = deliveryHandle(temporal, eventId, destinationId);
  await waitUntil(() =>
    handle.describe().then(
      () => true,
      () => false,
    ),
  );
  return handle;
}

export function queryDeliveryState(
  temporal: Client,
  eventId: string,
  destinationId: string,
): Promise<WebhookDeliveryState> {
  return deliveryHandle(temporal, eventId, destinationId).query(webhookStateQuery);
}

export async function waitUntil<T>(
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export interface WebhookStack {
  app: TestApp;
  receiver: WebhookReceiver;
  /** The accounts whose events this file's relay dispatches: push each account the file creates. */
  accounts: string[];
  close(): Promise<void>;
}

/**
 * What a webhook test file runs: the app and a worker on its own task queue, a relay of the file's own
 * accounts (files share the database) and a loopback receiver.
 */
export async function startWebhookStack(taskQueue: string): Promise<WebhookStack> {
  allowPrivateWebhookTargets();
  // The API's own starts (a resend's workflow) go to the file's worker too.
  const app = await startTestApp({ taskQueue });
  const worker = await startTestWorker(app.prisma, taskQueue);
  const accounts: string[] = [];
  const relay = startRelay({
    prisma: app.prisma,
    databaseUrl: process.env.DATABASE_URL!,
    temporal: app.temporal,
    taskQueue,
    accountIds: () => accounts,
  });
  const receiver = await startWebhookReceiver();
  return {
    app,
    receiver,
    accounts,
    async close() {
      await relay.stop();
      await worker.stop();
      await receiver.close();
      await app.close();
    },
  };
}
