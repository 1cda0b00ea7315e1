import { queryRows, type Queryable, type Statement } from '../db/sql';
import type { RetentionTarget } from './retention-targets';

/**
 * The retention sweep's statements (docs/decisions.md §24). Each deletes one batch: the oldest rows past
 * their period, found on an index in the order of `order` after the previous batch's last row, deleted by
 * primary key (`DELETE ... WHERE key IN (SELECT key FROM batch)`), in the one statement's transaction, so no
 * lock is held past it. The list counters follow in the same transaction (the triggers of §23).
 * `$1` is the period in milliseconds (the cutoff is the database's now() minus it), then the cursor's
 * values, then the limit.
 */
interface SweepSpec {
  table: string;
  /** The primary key's columns. */
  keys: string[];
  /** The walk's order: an index's columns, the key's last ones breaking ties; each with its SQL type. */
  order: { column: string; type: 'timestamptz' | 'text' | 'bigint' }[];
  /** Which rows are past their period and no longer needed, on `x` (CUTOFF: the cutoff time). */
  where: string;
  /** Checked again on the row being deleted (`y`), for a row changed since the batch read it. */
  recheck: string;
}

const CUTOFF = `(now() - $1::bigint * interval '1 millisecond')`;

const deliveries = (status: 'success' | 'failure'): SweepSpec => ({
  table: 'webhook_deliveries',
  keys: ['id'],
  // The (status, created_at) index: a delivery completes after it was created, so created_at < cutoff
  // bounds the range and completed_at < cutoff filters it.
  order: [
    { column: 'created_at', type: 'timestamptz' },
    { column: 'id', type: 'text' },
  ],
  where: `x.status = '${status}' AND x.created_at < ${CUTOFF} AND x.completed_at < ${CUTOFF}`,
  recheck: `AND y.status = '${status}'`,
});

// An event no delivery names any more (its finished deliveries went first; a pending or retrying one keeps
// it), dispatched by the relay, written before the cutoff. Walked on the (dispatched_at, seq) index: an
// event is dispatched after it is written, so dispatched_at < cutoff bounds the range.
const EVENT_UNUSED = (alias: string) =>
  `NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ${alias}.id)`;

const SPECS: Record<RetentionTarget, SweepSpec> = {
  webhook_deliveries_success: deliveries('success'),
  webhook_deliveries_failure: deliveries('failure'),
  events: {
    table: 'events',
    keys: ['id'],
    order: [
      { column: 'dispatched_at', type: 'timestamptz' },
      { column: 'seq', type: 'bigint' },
    ],
    where: `x.dispatched_at < ${CUTOFF} AND x.inserted_at < ${CUTOFF} AND ${EVENT_UNUSED('x')}`,
    recheck: `AND ${EVENT_UNUSED('y')}`,
  },
  // Past the replay window, unless a request holds the key (a claim or takeover sets locked_at).
  idempotency_keys: {
    table: 'idempotency_keys',
    keys: ['account_id', 'key'],
    order: [
      { column: 'created_at', type: 'timestamptz' },
      { column: 'account_id', type: 'text' },
      { column: 'key', type: 'text' },
    ],
    where: `x.created_at < ${CUTOFF} AND x.locked_at < ${CUTOFF}`,
    recheck: `AND y.created_at < ${CUTOFF} AND y.locked_at < ${CUTOFF}`,
  },
  // Sent or failed: a queued email is still being sent by its workflow.
  emails: {
    table: 'emails',
    keys: ['id'],
    order: [
      { column: 'created_at', type: 'timestamptz' },
      { column: 'id', type: 'text' },
    ],
    where: `x.created_at < ${CUTOFF} AND x.status <> 'queued'`,
    recheck: `AND y.status <> 'queued'`,
  },
  caught_emails: {
    table: 'caught_emails',
    keys: ['id'],
    order: [
      { column: 'received_at', type: 'timestamptz' },
      { column: 'id', type: 'bigint' },
    ],
    where: `x.received_at < ${CUTOFF}`,
    recheck: '',
  },
};

/** The cursor's value before every row, per type. */
const FIRST: Record<SweepSpec['order'][number]['type'], string> = {
  timestamptz: '-infinity',
  text: '',
  bigint: '-9223372036854775808',
};

function sweepStatement(target: RetentionTarget, spec: SweepSpec): Statement {
  const x = (column: string) => `x.${column}`;
  const orderColumns = spec.order.map((o) => o.column);
  const cursor = spec.order.map((o, i) => `$${i + 2}::${o.type}`);
  const limit = `$${spec.order.length + 2}`;
  const text = `WITH batch AS MATERIALIZED (
      SELECT ${spec.order.map((o, i) => `${x(o.column)} AS o${i}`).join(', ')},
        ${spec.keys.map((key) => `${x(key)} AS k_${key}`).join(', ')}
      FROM ${spec.table} x
      WHERE ${spec.where} AND (${orderColumns.map(x).join(', ')}) > (${cursor.join(', ')})
      ORDER BY ${orderColumns.map(x).join(', ')} LIMIT ${limit}
    ), gone AS (
      DELETE FROM ${spec.table} y WHERE (${spec.keys.map((key) => `y.${key}`).join(', ')}) IN (
        SELECT ${spec.keys.map((key) => `k_${key}`).join(', ')} FROM batch) ${spec.recheck}
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM gone)::int AS deleted, (SELECT count(*) FROM batch)::int AS found,
      ${spec.order.map((_, i) => `l.o${i}`).join(', ')}
    FROM (SELECT 1) one LEFT JOIN LATERAL (
      SELECT ${spec.order.map((_, i) => `o${i}`).join(', ')} FROM batch
      ORDER BY ${spec.order.map((_, i) => `o${i} DESC`).join(', ')} LIMIT 1) l ON true`;
  return { name: `retention_sweep_${target}`, text };
}

const STATEMENTS = Object.fromEntries(
  Object.entries(SPECS).map(([target, spec]) => [target, sweepStatement(target as RetentionTarget, spec)]),
) as Record<RetentionTarget, Statement>;

/** The statement of a target's batch and its values (exported for the plan tests of test/scale). */
export function retentionBatchStatement(
  target: RetentionTarget,
  periodMs: number,
  after: string[] | null,
  limit: number,
): { statement: Statement; values: unknown[] } {
  const spec = SPECS[target];
  const cursor = after ?? spec.order.map((o) => FIRST[o.type]);
  return { statement: STATEMENTS[target], values: [periodMs, ...cursor, limit] };
}

export interface RetentionBatchRow {
  deleted: number;
  found: number;
  /** The last row's order values (as text), where the next batch starts; null when the batch found none. */
  last: string[] | null;
}

/** Deletes one batch of `target` (its own transaction: one statement on the pool). */
export async function deleteRetentionBatch(
  db: Queryable,
  target: RetentionTarget,
  periodMs: number,
  after: string[] | null,
  limit: number,
): Promise<RetentionBatchRow> {
  const { statement, values } = retentionBatchStatement(target, periodMs, after, limit);
  const [row] = await queryRows<Record<string, unknown> & { deleted: number; found: number }>(db, statement, values);
  const order = SPECS[target].order;
  const first = row!.o0;
  const last =
    first === null || first === undefined
      ? null
      : order.map((o, i) => {
          const value = row![`o${i}`];
          return value instanceof Date ? value.toISOString() : String(value);
        });
  return { deleted: row!.deleted, found: row!.found, last };
}
