import { config } from '../config';
import type { Queryable } from '../db/sql';
import { deleteRetentionBatch } from './retention.records';
import {
  RETENTION_BATCH_LIMIT,
  type RetentionBatchInput,
  type RetentionBatchResult,
  type RetentionTarget,
} from './retention-targets';

/** A target's period from the configuration (RETENTION_*, docs/configuration.md), read when the batch runs. */
export function retentionPeriodMs(target: RetentionTarget): number {
  const periods = config.retention;
  switch (target) {
    case 'webhook_deliveries_success':
    case 'webhook_deliveries_failure':
      return periods.deliveriesMs;
    case 'events':
      return periods.eventsMs;
    case 'idempotency_keys':
      return periods.idempotencyKeysMs;
    case 'emails':
    case 'caught_emails':
      return periods.emailsMs;
  }
}

/**
 * One batch of the retention sweep (docs/decisions.md §24): at most RETENTION_BATCH_LIMIT rows of the target
 * past their period, after `after`. Idempotent: a batch run again deletes what is still there to delete.
 */
export async function sweepRetentionBatch(db: Queryable, input: RetentionBatchInput): Promise<RetentionBatchResult> {
  const limit = Math.min(input.limit ?? RETENTION_BATCH_LIMIT, RETENTION_BATCH_LIMIT);
  const after = input.after === null ? null : (JSON.parse(input.after) as string[]);
  const row = await deleteRetentionBatch(db, input.target, retentionPeriodMs(input.target), after, limit);
  return {
    deleted: row.deleted,
    after: row.last === null ? input.after : JSON.stringify(row.last),
    done: row.found < limit,
  };
}
