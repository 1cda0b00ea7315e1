import type { Client } from '@temporalio/client';
import type { Db } from '../db/prisma';
import { runTransaction } from '../db/sql-transaction';
import { conflict, notFound } from '../http/errors';
import type { Logger } from '../http/logger';
import { newId } from '../lib/ids';
import { deliveryDisplay } from '../temporal';
import { BILLING_ACCOUNT_ID, BILLING_STATUS } from '../temporal';
import { recordWorkflowStart, startRecordedWorkflow, type WorkflowStart } from '../temporal';
import { drawRetryDelays } from '../../workflows/webhook-schedule';
import type { DeliverWebhookInput } from '../../workflows/webhook-delivery-messages';
import { toDeliveryLogObject } from './delivery-log.service';
import { deliveriesOfPair, insertResend, lockDelivery } from './delivery-resend.records';
import type { DeliveryLogObject } from './webhook.schemas';
import { webhookWorkflowId } from './workflow-id';

export interface ResendDeps {
  prisma: Db;
  temporal: Client;
  taskQueue: string;
  logger?: Logger;
}

/**
 * Delivers the event of delivery `id` again to the same destination (docs/decisions.md §27): a new
 * delivery row (the same envelope, so receivers deduplicate it on its `id`) and its own
 * `deliverWebhook` workflow, which makes attempt 1 itself and keeps the usual retry schedule. The
 * row and the workflow's start are written in one transaction (the start outbox, decisions.md §14), so
 * a crash after the commit leaves the start to the worker's sweep. Refused while a delivery of that
 * event to that destination is still running, and when the destination is disabled or deleted.
 */
export async function resendDelivery(deps: ResendDeps, accountId: string, id: string): Promise<DeliveryLogObject> {
  const { resent, start } = await runTransaction(deps.prisma, async (tx) => {
    const found = await lockDelivery(tx, accountId, id);
    if (!found) throw notFound('webhook delivery', id);
    const { delivery, destinationActive } = found;
    if (!destinationActive)
      throw conflict(
        `Destination ${delivery.destinationId} is disabled or deleted: enable it to resend`,
        'destination_disabled',
      );
    const pair = await deliveriesOfPair(tx, delivery.eventId, delivery.destinationId);
    if (pair.running)
      throw conflict(
        `Event ${delivery.eventId} is still being delivered to ${delivery.destinationId}: resend once it has ended`,
        'delivery_in_progress',
      );
    const resend = pair.lastResend + 1;
    const row = await insertResend(tx, {
      id: newId('webhookDelivery'),
      accountId,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      destinationId: delivery.destinationId,
      payload: delivery.payload as object,
      resend,
    });
    const retryDelaysMs = drawRetryDelays(Math.random);
    const input: DeliverWebhookInput = {
      deliveryId: row.id,
      eventId: row.eventId,
      destinationId: row.destinationId,
      retryDelaysMs,
    };
    const recorded: WorkflowStart = {
      workflowId: webhookWorkflowId(row.eventId, row.destinationId, resend),
      accountId,
      workflowType: 'deliverWebhook',
      taskQueue: deps.taskQueue,
      args: [input],
      searchAttributes: [
        { key: BILLING_ACCOUNT_ID, value: accountId },
        { key: BILLING_STATUS, value: 'pending' },
      ],
      ...deliveryDisplay({
        accountId,
        deliveryId: row.id,
        eventId: row.eventId,
        destinationId: row.destinationId,
        retryDelaysMs,
        resend,
      }),
    };
    await recordWorkflowStart(tx, recorded);
    return { resent: row, start: recorded };
  });
  await startRecordedWorkflow(deps, start);
  return toDeliveryLogObject(resent);
}
