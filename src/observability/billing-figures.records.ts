import type { Db } from '../db/prisma';
import { OPEN_TERMINAL_STATES } from '../payment-plans';

/** Backlog counts stop here: a gauge at this value means "at least" (docs/operations.md, "Metrics and alerts"). */
export const BACKLOG_COUNT_LIMIT = 10_000;
/** A scrape's reads from PostgreSQL: each statement, and the wait for a connection, are bounded. */
const STATEMENT_TIMEOUT_MS = 2_000;
const DATABASE_BOUNDS = { maxWait: 2_000, timeout: 5_000 };
export const BACKLOG_DELIVERY_STATUSES = ['pending', 'retry'] as const;

export interface Figures {
  outboxPending: number;
  outboxLagSeconds: number;
  startsPending: number;
  startsOldestSeconds: number;
  deliveries: Record<(typeof BACKLOG_DELIVERY_STATUSES)[number], { count: number; oldestSeconds: number }>;
  subscriptions: Map<string, number>;
  plans: Map<string, number>;
  stuck: Map<string, number>;
}

/**
 * One read of every database figure, in one transaction whose statements are cut at
 * STATEMENT_TIMEOUT_MS. Each is index-bound: the deliveries' backlog is summed from the counters the
 * triggers keep (webhook_delivery_counts, docs/decisions.md §23: exact, a few rows per account, never the
 * deliveries themselves), the other backlog counts stop at BACKLOG_COUNT_LIMIT, and the oldest
 * row is the first of an index (webhook_deliveries (status, created_at), workflow_starts (created_at),
 * payment_plan_payments (terminal_state, state_changed_at)); subscriptions and payment plans are
 * counted per status over their (account_id, status) index. Ages are from the database's clock.
 */
export async function readFigures(prisma: Db, stuckMinutes: number): Promise<Figures> {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${STATEMENT_TIMEOUT_MS}`);
    const limit = BACKLOG_COUNT_LIMIT;
    const [backlog] = await tx.$queryRaw<
      {
        outbox_pending: number;
        outbox_lag: number;
        starts_pending: number;
        starts_oldest: number;
        pending_count: number;
        pending_oldest: number;
        retry_count: number;
        retry_oldest: number;
      }[]
    >`
      SELECT
        (SELECT count(*) FROM (SELECT 1 FROM events WHERE dispatched_at IS NULL LIMIT ${limit}) e)::int AS outbox_pending,
        COALESCE((SELECT EXTRACT(EPOCH FROM now() - min(inserted_at)) FROM events WHERE dispatched_at IS NULL), 0)::float8 AS outbox_lag,
        (SELECT count(*) FROM (SELECT 1 FROM workflow_starts LIMIT ${limit}) w)::int AS starts_pending,
        COALESCE(EXTRACT(EPOCH FROM now() - (SELECT created_at FROM workflow_starts ORDER BY created_at LIMIT 1)), 0)::float8 AS starts_oldest,
        (SELECT coalesce(sum(n), 0) FROM webhook_delivery_counts WHERE status = 'pending')::int AS pending_count,
        COALESCE(EXTRACT(EPOCH FROM now() - (SELECT created_at FROM webhook_deliveries WHERE status = 'pending' ORDER BY created_at LIMIT 1)), 0)::float8 AS pending_oldest,
        (SELECT coalesce(sum(n), 0) FROM webhook_delivery_counts WHERE status = 'retry')::int AS retry_count,
        COALESCE(EXTRACT(EPOCH FROM now() - (SELECT created_at FROM webhook_deliveries WHERE status = 'retry' ORDER BY created_at LIMIT 1)), 0)::float8 AS retry_oldest`;
    const subscriptions = await tx.$queryRaw<{ status: string; count: number }[]>`
      SELECT status, count(*)::int AS count FROM subscriptions GROUP BY status`;
    const plans = await tx.$queryRaw<{ status: string; count: number }[]>`
      SELECT status, count(*)::int AS count FROM payment_plans GROUP BY status`;
    const stuck = await tx.$queryRaw<{ state: string; count: number }[]>`
      SELECT terminal_state AS state, count(*)::int AS count FROM (
        SELECT terminal_state FROM payment_plan_payments
        WHERE terminal_state = ANY(${[...OPEN_TERMINAL_STATES]}::text[]) AND state_changed_at <= now() - make_interval(mins => ${stuckMinutes})
        LIMIT ${limit}) p
      GROUP BY terminal_state`;
    const row = backlog!;
    return {
      outboxPending: row.outbox_pending,
      outboxLagSeconds: Math.max(0, row.outbox_lag),
      startsPending: row.starts_pending,
      startsOldestSeconds: Math.max(0, row.starts_oldest),
      deliveries: {
        pending: { count: row.pending_count, oldestSeconds: Math.max(0, row.pending_oldest) },
        retry: { count: row.retry_count, oldestSeconds: Math.max(0, row.retry_oldest) },
      },
      subscriptions: new Map(subscriptions.map((entry) => [entry.status, entry.count])),
      plans: new Map(plans.map((entry) => [entry.status, entry.count])),
      stuck: new Map(stuck.map((entry) => [entry.state, entry.count])),
    };
  }, DATABASE_BOUNDS);
}
