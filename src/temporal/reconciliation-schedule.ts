import type { Client } from '@temporalio/client';
import { config } from '../config';
import { ensureIntervalSchedule } from './retention-schedule';
import { reconciliationDisplay } from './workflow-display';

/** The schedule's id and its workflows' id (each run `payment-reconciliation-<time>`). */
export const RECONCILIATION_SCHEDULE_ID = 'payment-reconciliation';

/** How often the processors are asked about payments in flight: the bound of docs/decisions.md §40. */
export const RECONCILIATION_EVERY_MS = 60_000;

/** The schedule that starts the payment reconciliation (docs/decisions.md §40), made at each worker's start. */
export function ensureReconciliationSchedule(
  client: Client,
  options: { taskQueue?: string; scheduleId?: string; everyMs?: number } = {},
): Promise<'created' | 'updated'> {
  const every = options.everyMs ?? RECONCILIATION_EVERY_MS;
  return ensureIntervalSchedule(client, {
    scheduleId: options.scheduleId ?? RECONCILIATION_SCHEDULE_ID,
    workflowType: 'paymentReconciliation',
    taskQueue: options.taskQueue ?? config.taskQueue,
    everyMs: every,
    display: reconciliationDisplay(every),
  });
}
