import { execute, queryRows, type Queryable, type Statement } from '../db/sql';
import type { SqlConnection } from '../db/sql-transaction';
import type { OutboxEvent } from '../lib/events';

/**
 * The webhook relay's statements (docs/architecture.md, "Data access"). The relay claims events with
 * session advisory locks, not row locks: a row lock lives in a transaction, and the relay calls
 * destinations and Temporal between its claim and its mark, which no transaction may span.
 */

/** An event (what its envelope needs) with one destination to deliver it to. */
export interface EventForDestination {
  eventId: string;
  accountId: string;
  type: string;
  createdAt: Date;
  data: unknown;
  destinationId: string;
}

export interface DeliveryKey {
  id: string;
  accountId: string;
  eventId: string;
  destinationId: string;
}

/** The lock of an event's claim: a key of its own, apart from other advisory locks. */
const CLAIM_KEY = `hashtextextended('relay:' || c.id, 0)`;

// The LIMIT in a subquery first: the lock is tried on the candidates only, never on rows the LIMIT drops.
const CLAIM_EVENTS: Statement = {
  name: 'relay_claim_events',
  text: `SELECT c.id FROM (SELECT id, seq FROM events WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1) c
    WHERE pg_try_advisory_lock(${CLAIM_KEY}) ORDER BY c.seq`,
};
const CLAIM_ACCOUNTS_EVENTS: Statement = {
  name: 'relay_claim_accounts_events',
  text: `SELECT c.id FROM (SELECT id, seq FROM events WHERE dispatched_at IS NULL AND account_id = ANY($2::text[])
      ORDER BY seq LIMIT $1) c
    WHERE pg_try_advisory_lock(${CLAIM_KEY}) ORDER BY c.seq`,
};
/** Claimed, but perhaps dispatched by another relay between the read of the candidates and the lock. */
const STILL_UNDISPATCHED: Statement = {
  name: 'relay_still_undispatched',
  text: 'SELECT id FROM events WHERE id = ANY($1::text[]) AND dispatched_at IS NULL ORDER BY seq',
};

/**
 * Up to `limit` undispatched events (of `accountIds` when given), in `seq` order, claimed by
 * `session` until releaseClaims: another relay skips them, as FOR UPDATE SKIP LOCKED would.
 */
export async function claimEvents(
  session: SqlConnection,
  limit: number,
  accountIds: readonly string[] | undefined,
): Promise<string[]> {
  const claimed = accountIds
    ? await queryRows<{ id: string }>(session, CLAIM_ACCOUNTS_EVENTS, [limit, accountIds])
    : await queryRows<{ id: string }>(session, CLAIM_EVENTS, [limit]);
  if (claimed.length === 0) return [];
  const rows = await queryRows<{ id: string }>(session, STILL_UNDISPATCHED, [claimed.map((row) => row.id)]);
  return rows.map((row) => row.id);
}

const RELEASE_CLAIMS: Statement = { name: 'relay_release_claims', text: 'SELECT pg_advisory_unlock_all()' };

/** Ends every claim of `session` (before its connection goes back to the pool). */
export async function releaseClaims(session: SqlConnection): Promise<void> {
  await queryRows(session, RELEASE_CLAIMS, []);
}

const EVENTS_WITH_DESTINATIONS: Statement = {
  name: 'relay_events_with_destinations',
  text: `SELECT e.id AS "eventId", e.account_id AS "accountId", e.type, e.created_at AS "createdAt", e.data, d.id AS "destinationId"
    FROM events e JOIN webhook_destinations d ON d.account_id = e.account_id AND d.active AND d.deleted_at IS NULL
    WHERE e.id = ANY($1::text[]) ORDER BY e.seq, d.id`,
};

/** Each event with each destination of its account active now, in the events' order. */
export function eventsWithDestinations(db: Queryable, eventIds: string[]): Promise<EventForDestination[]> {
  return queryRows<EventForDestination>(db, EVENTS_WITH_DESTINATIONS, [eventIds]);
}

const INSERT_DELIVERIES: Statement = {
  name: 'relay_insert_deliveries',
  text: `WITH inserted AS (
      INSERT INTO webhook_deliveries (id, account_id, event_id, event_type, destination_id, payload)
      SELECT id, account_id, event_id, event_type, destination_id, payload::jsonb
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS r(id, account_id, event_id, event_type, destination_id, payload)
      ON CONFLICT (event_id, destination_id, resend) DO NOTHING
      RETURNING id, account_id, event_id, destination_id)
    SELECT id, account_id AS "accountId", event_id AS "eventId", destination_id AS "destinationId" FROM inserted
    UNION ALL
    SELECT id, account_id, event_id, destination_id FROM webhook_deliveries WHERE event_id = ANY($7::text[]) AND resend = 0`,
};

export interface NewDelivery {
  id: string;
  accountId: string;
  eventId: string;
  type: string;
  destinationId: string;
  /** The envelope as JSON text. */
  payload: string;
}

/**
 * The delivery rows of `rows`, and those of `eventIds` left by an earlier run that stopped half-way (a
 * row is unique per event and destination, resends aside): every delivery of the events, committed.
 */
export function insertDeliveries(db: Queryable, rows: NewDelivery[], eventIds: string[]): Promise<DeliveryKey[]> {
  return queryRows<DeliveryKey>(db, INSERT_DELIVERIES, [
    rows.map((row) => row.id),
    rows.map((row) => row.accountId),
    rows.map((row) => row.eventId),
    rows.map((row) => row.type),
    rows.map((row) => row.destinationId),
    rows.map((row) => row.payload),
    eventIds,
  ]);
}

const MARK_DISPATCHED: Statement = {
  name: 'relay_mark_dispatched',
  text: 'UPDATE events SET dispatched_at = clock_timestamp() WHERE id = ANY($1::text[])',
};

export async function markDispatched(db: Queryable, eventIds: string[]): Promise<void> {
  await execute(db, MARK_DISPATCHED, [eventIds]);
}

const EVENTS_OF_TYPES: Statement = {
  name: 'relay_events_of_types',
  text: `SELECT id, account_id AS "accountId", type, data FROM events
    WHERE id = ANY($1::text[]) AND type = ANY($2::text[]) ORDER BY seq`,
};

/** The events of `eventIds` whose type is one of `types`, in order: what a consumer besides the webhooks takes. */
export function eventsOfTypes(db: Queryable, eventIds: string[], types: readonly string[]): Promise<OutboxEvent[]> {
  return queryRows<OutboxEvent>(db, EVENTS_OF_TYPES, [eventIds, types]);
}
