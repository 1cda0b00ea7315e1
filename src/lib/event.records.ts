import type pg from 'pg';
import type { Event, Prisma } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { execute, type AnyTx, type Statement } from '../db/sql';

/** The channel NOTIFY wakes the webhook relay on (src/webhooks/relay.ts LISTENs), with the event id. */
export const EVENTS_CHANNEL = 'billing_events';

/** Subscribes `client` to the NOTIFY below for as long as its session lasts: a connection of its own, not the pool's. */
export async function listenForEvents(client: pg.Client): Promise<void> {
  await client.query(`LISTEN ${EVENTS_CHANNEL}`);
}

/**
 * The outbox's insert, for a statement that writes an event beside its change (a CTE): `rows` is a
 * VALUES list or a SELECT of (id, account_id, type, data, created_at). Answers the ids written. The
 * object and customer the event concerns are read from its data here, once for every writer, so
 * GET /events filters on indexed columns (docs/decisions.md §26).
 */
export function insertEventsSql(rows: string): string {
  return `INSERT INTO events (id, account_id, type, data, created_at, object_id, customer_id)
    SELECT r.id, r.account_id, r.type, r.data, r.created_at, r.data->>'id',
      CASE WHEN r.type LIKE 'customer.%' THEN r.data->>'id'
           WHEN jsonb_typeof(r.data->'customer') = 'string' THEN r.data->>'customer' END
    FROM (${rows}) AS r(id, account_id, type, data, created_at) RETURNING id`;
}

/** Notifies the relay of each event the CTE `cte` (of insertEventsSql) wrote; counts them. */
export function notifyEventsSql(cte: string): string {
  return `(SELECT count(*) FROM ${cte}, LATERAL pg_notify('${EVENTS_CHANNEL}', ${cte}.id))::int`;
}

// One statement for both, outside Prisma's query pipeline (docs/performance.md: a charged subscription
// creation writes four events); the NOTIFY is sent at commit.
const INSERT_EVENT: Statement = {
  name: 'event_insert',
  text: `WITH inserted AS (${insertEventsSql('VALUES ($1::text, $2::text, $3::text, $4::jsonb, $5::timestamptz)')})
    SELECT ${notifyEventsSql('inserted')} AS notified`,
};

/** An events row as written: the data any object (JSON), the rest the database's. */
export type EventRow = Pick<Event, 'id' | 'accountId' | 'type' | 'createdAt'> & { data: object };

/** Writes an event in the caller's transaction, which commits it with the change it tells of. */
export async function insertEvent(tx: AnyTx, event: EventRow): Promise<void> {
  await execute(tx, INSERT_EVENT, [event.id, event.accountId, event.type, JSON.stringify(event.data), event.createdAt]);
}

/** What GET /events filters on: each absent filter is no filter (docs/api.md "Events"). */
export interface EventFilter {
  accountId: string;
  /** An exact type, or a group as `invoice.*`. */
  type?: string;
  objectId?: string;
  customerId?: string;
  created: { gt?: Date; gte?: Date; lt?: Date; lte?: Date };
}

function whereOf(filter: EventFilter): Prisma.EventWhereInput {
  const type = filter.type?.endsWith('.*') ? { startsWith: filter.type.slice(0, -1) } : filter.type;
  return {
    accountId: filter.accountId,
    ...(type ? { type } : {}),
    ...(filter.objectId ? { objectId: filter.objectId } : {}),
    ...(filter.customerId ? { customerId: filter.customerId } : {}),
    createdAt: filter.created,
  };
}

const EVENT_COLUMNS = { id: true, type: true, data: true, createdAt: true } as const;
export type StoredEvent = Pick<Event, 'id' | 'type' | 'data' | 'createdAt'>;

/**
 * The account's events that pass `filter`, newest first (insertion order among events of the same
 * time), one page of them and how many there are: each filter has its index (account, column, time).
 */
export async function listEvents(
  db: Db,
  filter: EventFilter,
  { skip, take }: { skip: number; take: number },
): Promise<{ rows: StoredEvent[]; total: number }> {
  const where = whereOf(filter);
  const [rows, total] = await Promise.all([
    db.event.findMany({ where, select: EVENT_COLUMNS, orderBy: [{ createdAt: 'desc' }, { seq: 'desc' }], skip, take }),
    db.event.count({ where }),
  ]);
  return { rows, total };
}

/** One event of the account; null for an unknown id or another account's. */
export function findEvent(db: Db, accountId: string, id: string): Promise<StoredEvent | null> {
  return db.event.findFirst({ where: { id, accountId }, select: EVENT_COLUMNS });
}
