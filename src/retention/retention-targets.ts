/**
 * What the retention sweep deletes, in the order it goes (docs/decisions.md §24): finished webhook
 * deliveries (their attempts go with them) before the events they deliver, so that an event is only
 * deleted once no delivery log names it. Pure: the sweep's workflow imports it.
 */
export const RETENTION_TARGETS = [
  'webhook_deliveries_success',
  'webhook_deliveries_failure',
  'events',
  'idempotency_keys',
  'emails',
  'caught_emails',
] as const;

export type RetentionTarget = (typeof RETENTION_TARGETS)[number];

/** Rows one batch deletes at most, each batch a transaction of its own (docs/decisions.md §24). */
export const RETENTION_BATCH_LIMIT = 1_000;

export interface RetentionBatchInput {
  target: RetentionTarget;
  /** Where the previous batch of this target stopped (opaque; null: from the oldest row). */
  after: string | null;
  /** Rows at most (RETENTION_BATCH_LIMIT unless smaller). */
  limit?: number;
}

export interface RetentionBatchResult {
  deleted: number;
  /** Where the next batch of this target starts. */
  after: string | null;
  /** Nothing more of this target is past its period (the batch found fewer rows than its limit). */
  done: boolean;
}
