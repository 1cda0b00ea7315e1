import { AsyncLocalStorage } from 'node:async_hooks';
import type { AnyTx } from '../db/sql';
import { withOrigin, type EventOrigin } from './event-origin';
import { insertEvent, insertEvents } from './event.records';
import { newId } from './ids';
import { currentTime } from './clock-time';

export interface EventEnvelope {
  id: string;
  event: string;
  createdAt: string;
  data: unknown;
}

/** The origin of the change the current request makes, inside `fromOrigin` (a hosted page's action). */
const originScope = new AsyncLocalStorage<EventOrigin>();

/** Runs `work` so that every event it records carries `origin` (docs/decisions.md §38). */
export function fromOrigin<T>(origin: EventOrigin, work: () => Promise<T>): Promise<T> {
  return originScope.run(origin, work);
}

/** The origin `fromOrigin` set around the current work, for changes handed to a workflow. */
export function currentOrigin(): EventOrigin | undefined {
  return originScope.getStore();
}

/**
 * Writes an event to the outbox. Call it with the transaction that makes the change, so the change
 * and its event commit together or not at all. The NOTIFY (sent at commit) wakes the webhook relay.
 */
export async function recordEvent(tx: AnyTx, accountId: string, type: string, object: object): Promise<EventEnvelope> {
  const id = newId('event');
  const createdAt = currentTime();
  const data = withOrigin(object, currentOrigin());
  await insertEvent(tx, { id, accountId, type, data, createdAt });
  return { id, event: type, createdAt: createdAt.toISOString(), data };
}

/** recordEvent for several events of one change, written in one statement in the order given (same time, same origin). */
export async function recordEvents(
  tx: AnyTx,
  accountId: string,
  events: { type: string; object: object }[],
): Promise<EventEnvelope[]> {
  const createdAt = currentTime();
  const origin = currentOrigin();
  const rows = events.map(({ type, object }) => ({
    id: newId('event'),
    accountId,
    type,
    data: withOrigin(object, origin),
    createdAt,
  }));
  await insertEvents(tx, rows);
  return rows.map((row) => ({ id: row.id, event: row.type, createdAt: createdAt.toISOString(), data: row.data }));
}

/** An outbox event as the relay hands it to a consumer besides the webhooks (the emails). */
export interface OutboxEvent {
  id: string;
  accountId: string;
  type: string;
  data: unknown;
}

/**
 * Something the relay does for each event of `types` before it marks the event dispatched (docs/decisions.md
 * §30): it must be repeatable, since a relay that stops before the mark hands the same events again.
 */
export interface EventConsumer {
  types: readonly string[];
  consume(events: OutboxEvent[]): Promise<void>;
}
