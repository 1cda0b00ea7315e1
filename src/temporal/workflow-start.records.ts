import type { WorkflowStart } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { execute, queryRows, type AnyTx, type Queryable, type Statement } from '../db/sql';

/** A workflow_starts row as the API writes it (args and options as JSON text). */
export type WorkflowStartRow = Pick<WorkflowStart, 'workflowId' | 'accountId' | 'workflowType' | 'taskQueue'> & {
  args: string;
  options: string;
};

/**
 * The start outbox's insert, for a statement that records a start beside its change (a CTE): `rows` is
 * a VALUES list or a SELECT of (workflow_id, account_id, workflow_type, task_queue, args, options).
 */
export function insertWorkflowStartsSql(rows: string): string {
  return `INSERT INTO workflow_starts (workflow_id, account_id, workflow_type, task_queue, args, options) ${rows}`;
}

// Prepared: a third of Prisma's CPU for the same insert, on the creation's hot path (docs/performance.md).
const INSERT_START: Statement = {
  name: 'workflow_start_insert',
  text: insertWorkflowStartsSql('VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb)'),
};

export async function insertWorkflowStart(tx: AnyTx, row: WorkflowStartRow): Promise<void> {
  await execute(tx, INSERT_START, [
    row.workflowId,
    row.accountId,
    row.workflowType,
    row.taskQueue,
    row.args,
    row.options,
  ]);
}

const DELETE_START: Statement = {
  name: 'workflow_start_forget',
  text: 'DELETE FROM workflow_starts WHERE workflow_id = $1',
};

export async function deleteWorkflowStart(db: Queryable, workflowId: string): Promise<void> {
  await execute(db, DELETE_START, [workflowId]);
}

const DELETE_STARTS: Statement = {
  name: 'workflow_starts_forget',
  text: 'DELETE FROM workflow_starts WHERE workflow_id = ANY($1::text[])',
};

/** The rows of several starts made, in one statement. */
export async function deleteWorkflowStarts(db: Queryable, workflowIds: string[]): Promise<void> {
  await execute(db, DELETE_STARTS, [workflowIds]);
}

/** A recorded start as the sweep reads it back. */
export interface RecordedStart {
  workflowId: string;
  workflowType: string;
  taskQueue: string;
  args: unknown;
  options: unknown;
}

const STARTS_OLDER_THAN: Statement = {
  name: 'workflow_starts_older_than',
  text: `SELECT workflow_id AS "workflowId", workflow_type AS "workflowType", task_queue AS "taskQueue", args, options
    FROM workflow_starts
    WHERE task_queue = $1 AND created_at < now() - make_interval(secs => $2::float8)
    ORDER BY created_at LIMIT $3`,
};

/** The task queue's starts recorded more than `olderThanMs` ago, oldest first. */
export async function startsOlderThan(
  db: Queryable,
  taskQueue: string,
  olderThanMs: number,
  limit: number,
): Promise<RecordedStart[]> {
  return queryRows<RecordedStart>(db, STARTS_OLDER_THAN, [taskQueue, olderThanMs / 1000, limit]);
}

/** Whether a start of the workflow is recorded and not made yet. */
export async function hasWorkflowStart(db: Db, workflowId: string): Promise<boolean> {
  return (await db.workflowStart.count({ where: { workflowId } })) > 0;
}
