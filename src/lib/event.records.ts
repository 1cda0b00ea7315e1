import type pg from 'pg';
import type { Event } from '../generated/prisma/client';
import { execute, type AnyTx, type Statement } from '../db/sql';

/** The channel NOTIFY wakes the webhook relay on (src/webhooks/relay.ts LISTENs), with the event id. */
export const EVENTS_CHANNEL = 'billing_events';

/** Subscribes `client` to the NOTIFY below for as long as its session lasts: a connection of its own, not the pool's. */
export async function listenForEvents(client: pg.Client): Promise<void> {
  await client.query(`LISTEN ${EVENTS_CHANNEL}`);
}

/**
 * The outbox's insert, for a statement that writes an event beside its change (a CTE): `rows` is a
 * VALUES list or a SELECT of (id, account_id, type, data, created_at). Answers the ids written.
 */
export function insertEventsSql(rows: string): string {
  return `INSERT INTO events (id, account_id, type, data, created_at) ${rows} RETURNING id`;
}

/** Notifies the relay of each event the CTE `cte` (of insertEventsSql) wrote; counts them. */
export function notifyEventsSql(cte: string): string {
  return `(SELECT count(*) FROM ${cte}, LATERAL pg_notify('${EVENTS_CHANNEL}', ${cte}.id))::int`;
}

// One statement for both, outside Prisma's query pipeline (docs/performance.md: a charged subscription
// creation writes four events); the NOTIFY is sent at commit.
const INSERT_EVENT: Statement = {
  name: 'event_insert',
  text: `WITH inserted AS (${insertEventsSql('VALUES ($1, $2, $3, $4::jsonb, $5::timestamptz)')})
    SELECT ${notifyEventsSql('inserted')} AS notified`,
};

/** An events row as written: the data any object (JSON), the rest the database's. */
export type EventRow = Pick<Event, 'id' | 'accountId' | 'type' | 'createdAt'> & { data: object };

/** Writes an event in the caller's transaction, which commits it with the change it tells of. */
export async function insertEvent(tx: AnyTx, event: EventRow): Promise<void> {
  await execute(tx, INSERT_EVENT, [event.id, event.accountId, event.type, JSON.stringify(event.data), event.createdAt]);
}
