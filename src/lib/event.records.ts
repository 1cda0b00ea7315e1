import type pg from 'pg';
import type { Event } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { dayCountText } from '../db/day-counts';
import {
  execute,
  newestFirstWindow,
  queryBound,
  queryRows,
  statementOf,
  type AnyTx,
  type BoundStatement,
  type Queryable,
  type Statement,
} from '../db/sql';
import { halfOpenRange, type TimeBounds } from './time';

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

// Several events of one change in one statement, in the order given (their seq follows it): one firing of the
// events' counter trigger instead of one per event (docs/performance.md, "Eighteenth round").
const INSERT_EVENTS: Statement = {
  name: 'events_insert',
  text: `WITH inserted AS (${insertEventsSql(
    'SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[])',
  )})
    SELECT ${notifyEventsSql('inserted')} AS notified`,
};

/** An events row as written: the data any object (JSON), the rest the database's. */
export type EventRow = Pick<Event, 'id' | 'accountId' | 'type' | 'createdAt'> & { data: object };

/** Writes an event in the caller's transaction, which commits it with the change it tells of. */
export async function insertEvent(tx: AnyTx, event: EventRow): Promise<void> {
  await execute(tx, INSERT_EVENT, [event.id, event.accountId, event.type, JSON.stringify(event.data), event.createdAt]);
}

/** insertEvent for several events, written in one statement in their order. */
export async function insertEvents(tx: AnyTx, events: EventRow[]): Promise<void> {
  await execute(tx, INSERT_EVENTS, [
    events.map((event) => event.id),
    events.map((event) => event.accountId),
    events.map((event) => event.type),
    events.map((event) => JSON.stringify(event.data)),
    events.map((event) => event.createdAt),
  ]);
}

/** What GET /events filters on: each absent filter is no filter (docs/api.md "Events"). */
export interface EventFilter {
  accountId: string;
  /** An exact type, or a group as `invoice.*`. */
  type?: string;
  objectId?: string;
  customerId?: string;
  created: TimeBounds;
}

const EVENT_COLUMNS = { id: true, type: true, data: true, createdAt: true } as const;
export type StoredEvent = Pick<Event, 'id' | 'type' | 'data' | 'createdAt'>;

/** The WHERE of the filter on events `e`, numbering its values after `values` (which it extends). */
function filterSql(filter: EventFilter, values: unknown[]): string {
  values.push(filter.accountId);
  const parts = [`e.account_id = $${values.length}`];
  const add = (sql: string, value: unknown) => {
    if (value === undefined) return;
    values.push(value);
    parts.push(sql.replace('?', `$${values.length}`));
  };
  if (filter.type?.endsWith('.*')) add('e.type LIKE ?', `${filter.type.slice(0, -1)}%`);
  else add('e.type = ?', filter.type);
  add('e.object_id = ?', filter.objectId);
  add('e.customer_id = ?', filter.customerId);
  add('e.created_at > ?', filter.created.gt);
  add('e.created_at >= ?', filter.created.gte);
  add('e.created_at < ?', filter.created.lt);
  add('e.created_at <= ?', filter.created.lte);
  return parts.join(' AND ');
}

/**
 * How many of the account's events pass `filter`, exactly (docs/decisions.md §34). About one object or one
 * customer: counted from its index (account, column, created). Otherwise: the full UTC days of the created
 * range summed from event_counts (rows per type and day, kept by triggers in the writing transaction), and
 * the events of its partial first and last days counted from the index (at most two days' rows).
 */
export function eventCountStatement(filter: EventFilter): BoundStatement {
  const { from, until } = halfOpenRange(filter.created);
  const typeOf = (values: unknown[], column: string): string => {
    if (filter.type === undefined) return '';
    if (!filter.type.endsWith('.*')) return (values.push(filter.type), `AND ${column} = $${values.length}`);
    return (values.push(filter.type.slice(0, -1)), `AND starts_with(${column}, $${values.length})`);
  };
  if (filter.objectId === undefined && filter.customerId === undefined) {
    const values: unknown[] = [filter.accountId];
    const type = typeOf(values, 'type');
    const text = dayCountText(values, {
      counter: `SELECT coalesce(sum(n), 0)::bigint FROM event_counts WHERE account_id = $1 ${type}`,
      rows: `SELECT count(*)::bigint FROM events e WHERE e.account_id = $1 ${type.replace('type', 'e.type')}`,
      created: 'e.created_at',
      from,
      until,
    });
    if (text !== null) return { statement: statementOf('events_count', text), values };
  }
  const values: unknown[] = [filter.accountId];
  const parts = ['e.account_id = $1', typeOf(values, 'e.type').replace(/^AND /, '')];
  const add = (sql: string, value: unknown) => (values.push(value), parts.push(`${sql} $${values.length}`));
  if (filter.objectId !== undefined) add('e.object_id =', filter.objectId);
  if (filter.customerId !== undefined) add('e.customer_id =', filter.customerId);
  if (from !== undefined) add('e.created_at >=', from);
  if (until !== undefined) add('e.created_at <', until);
  const where = parts.filter(Boolean).join(' AND ');
  return {
    statement: statementOf('events_count', `SELECT count(*)::bigint AS n FROM events e WHERE ${where}`),
    values,
  };
}

/**
 * The account's events that pass `filter`, newest first (insertion order among events of the same time): a
 * page at an offset, or after/before a cursor's (created_at, seq) (docs/decisions.md §36, src/db/sql.ts
 * newestFirstWindow). Each filter has its index (account, column, time).
 */
export function eventListStatement(
  filter: EventFilter,
  window: Parameters<typeof newestFirstWindow>[2],
): BoundStatement {
  const values: unknown[] = [];
  const where = filterSql(filter, values);
  const text = `SELECT e.id, e.type, e.data, e.created_at AS "createdAt" FROM events e WHERE ${where}
    ${newestFirstWindow(['e.created_at', 'e.seq'], values, window)}`;
  return { statement: statementOf('events_list', text), values };
}

export interface EventPosition {
  createdAt: Date;
  seq: string;
}

export function readEventRows(db: Queryable, bound: BoundStatement): Promise<StoredEvent[]> {
  return queryBound<StoredEvent>(db, bound);
}

/** How many of the account's events pass `filter`, exactly (eventCountStatement). */
export async function countEvents(db: Queryable, filter: EventFilter): Promise<number> {
  const [count] = await queryBound<{ n: string }>(db, eventCountStatement(filter));
  return Number(count!.n);
}

const EVENT_POSITION: Statement = {
  name: 'event_position',
  text: `SELECT e.created_at, e.seq::text AS seq FROM events e WHERE e.id = $1 AND e.account_id = $2`,
};

/** Where an event of the account sits in the lists, or null (unknown, or another account's). */
export async function readEventPosition(db: Queryable, accountId: string, id: string): Promise<EventPosition | null> {
  const [row] = await queryRows<{ created_at: Date; seq: string }>(db, EVENT_POSITION, [id, accountId]);
  return row ? { createdAt: row.created_at, seq: row.seq } : null;
}

/** One event of the account; null for an unknown id or another account's. */
export function findEvent(db: Db, accountId: string, id: string): Promise<StoredEvent | null> {
  return db.event.findFirst({ where: { id, accountId }, select: EVENT_COLUMNS });
}
