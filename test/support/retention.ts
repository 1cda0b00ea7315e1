import type { Db } from '../../src/db/prisma';

/**
 * Rows as the service writes them, aged with SQL (the retention sweep's tests, docs/decisions.md §24): `count`
 * events of `accountId` written and dispatched `ageMs` ago, each with a delivery to `destinationId` in
 * `status` (completed `completedAgeMs` ago when finished) and one attempt, or none when `status` is null.
 * Ids are `<prefix>_<n>`. The list counters follow by the triggers, as for the service's own writes.
 */
export async function insertAgedDeliveries(
  prisma: Db,
  options: {
    accountId: string;
    destinationId: string;
    prefix: string;
    count: number;
    ageMs: number;
    status: 'success' | 'failure' | 'pending' | 'retry' | null;
    completedAgeMs?: number;
    dispatched?: boolean;
  },
): Promise<string[]> {
  const { accountId, destinationId, prefix, count, ageMs, status } = options;
  const age = `now() - $3::bigint * interval '1 millisecond'`;
  await prisma.$executeRawUnsafe(
    `INSERT INTO events (id, account_id, type, data, created_at, inserted_at, dispatched_at)
     SELECT 'evt_' || $1 || '_' || n, $2, 'customer.updated', '{}'::jsonb, ${age}, ${age}, ${options.dispatched === false ? 'NULL' : age}
     FROM generate_series(1, $4::int) n`,
    prefix,
    accountId,
    ageMs,
    count,
  );
  if (status !== null) {
    await prisma.$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (id, account_id, event_id, event_type, destination_id, payload, status,
         attempt_count, completed_at, created_at, updated_at)
       SELECT 'wd_' || $1 || '_' || n, $2, 'evt_' || $1 || '_' || n, 'customer.updated', $5,
         jsonb_build_object('id', 'evt_' || $1 || '_' || n, 'event', 'customer.updated',
           'createdAt', to_char((${age}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', '{}'::jsonb), $6, 1,
         CASE WHEN $6::text IN ('success', 'failure') THEN now() - $7::bigint * interval '1 millisecond' END, ${age}, ${age}
       FROM generate_series(1, $4::int) n`,
      prefix,
      accountId,
      ageMs,
      count,
      destinationId,
      status,
      options.completedAgeMs ?? ageMs,
    );
    await prisma.$executeRawUnsafe(
      `INSERT INTO webhook_attempts (id, delivery_id, attempt_number, scheduled_at, sent_at, url, outcome, duration_ms)
       SELECT 'wa_' || $1 || '_' || n, 'wd_' || $1 || '_' || n, 1, ${age}, ${age}, 'http://127.0.0.1/hook', 'success', 5
       FROM generate_series(1, $2::int) n`,
      prefix,
      count,
      ageMs,
    );
  }
  return Array.from({ length: count }, (_, i) => `evt_${prefix}_${i + 1}`);
}

export { DAY_MS } from '../../src/lib/durations';
