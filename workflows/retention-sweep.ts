import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { RetentionActivities } from '../activities/retention';
import { RETENTION_TARGETS, type RetentionTarget } from '../src/retention/retention-targets';
import { HEARTBEAT_TIMEOUT } from './activity-options';

/** A batch is one DELETE of at most 1,000 rows: database errors only, retried until they pass. */
const batches = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Batches one run makes before it continues as new, so its history stays short however much is due. */
const BATCHES_PER_RUN = 500;

export interface RetentionSweepInput {
  /** Where a run continued as new left off: the target's index in RETENTION_TARGETS and its cursor. */
  target?: number;
  after?: string | null;
  /** Rows deleted so far by this sweep, per target. */
  deleted?: Partial<Record<RetentionTarget, number>>;
}

export type RetentionSweepResult = Partial<Record<RetentionTarget, number>>;

/**
 * `retention-sweep` (docs/decisions.md §24), started by the Temporal schedule of the same name: every target
 * in order (deliveries before events), one activity per batch of at most 1,000 rows, each batch's cursor in
 * the workflow's history, so a sweep whose worker died resumes at the batch it was on.
 */
export async function retentionSweep(input: RetentionSweepInput = {}): Promise<RetentionSweepResult> {
  const deleted: RetentionSweepResult = { ...input.deleted };
  let target = input.target ?? 0;
  let after = input.after ?? null;
  let made = 0;
  while (target < RETENTION_TARGETS.length) {
    if (made >= BATCHES_PER_RUN) await continueAsNew<typeof retentionSweep>({ target, after, deleted });
    const name = RETENTION_TARGETS[target]!;
    const result = await batches.sweepRetentionBatch.executeWithOptions({ summary: `delete old ${name}` }, [
      { target: name, after },
    ]);
    made += 1;
    deleted[name] = (deleted[name] ?? 0) + result.deleted;
    if (result.done) {
      target += 1;
      after = null;
    } else {
      after = result.after;
    }
  }
  return deleted;
}
