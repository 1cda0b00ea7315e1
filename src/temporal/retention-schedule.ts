import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { config } from '../config';
import { retentionDisplay, type StartDisplay } from './workflow-display';

/** The schedule's id and its workflows' id (each run `retention-sweep-<time>`, the schedule's suffix). */
export const RETENTION_SCHEDULE_ID = 'retention-sweep';

export interface RetentionScheduleOptions {
  taskQueue?: string;
  scheduleId?: string;
  /** How often (RETENTION_SWEEP_EVERY unless given). */
  everyMs?: number;
}

/**
 * The Temporal schedule that starts the retention sweep (docs/decisions.md §24, docs/operations.md
 * "Retention"), created at each worker's start: a second worker, or a restart, finds it and brings its
 * interval and task queue up to date instead. A sweep still running when the next is due is not started
 * twice (overlap SKIP); a sweep missed while Temporal was down runs once when it is back.
 */
export async function ensureRetentionSchedule(
  client: Client,
  options: RetentionScheduleOptions = {},
): Promise<'created' | 'updated'> {
  const every = options.everyMs ?? config.retentionSweepEveryMs;
  return ensureIntervalSchedule(client, {
    scheduleId: options.scheduleId ?? RETENTION_SCHEDULE_ID,
    workflowType: 'retentionSweep',
    taskQueue: options.taskQueue ?? config.taskQueue,
    everyMs: every,
    display: retentionDisplay(every),
  });
}

/**
 * A Temporal schedule starting `workflowType` every `everyMs`, created by the first worker to start and
 * brought up to date (interval, task queue) by the others. A run still going when the next is due is not
 * started twice (overlap SKIP); a run missed while Temporal was down happens once it is back.
 */
export async function ensureIntervalSchedule(
  client: Client,
  options: { scheduleId: string; workflowType: string; taskQueue: string; everyMs: number; display: StartDisplay },
): Promise<'created' | 'updated'> {
  const { scheduleId } = options;
  const action = {
    type: 'startWorkflow' as const,
    workflowType: options.workflowType,
    workflowId: scheduleId,
    taskQueue: options.taskQueue,
    args: [{}],
    ...options.display,
  };
  const spec = { intervals: [{ every: options.everyMs }] };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' as const };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action, policies }));
  return 'updated';
}
