import type { AnyTx } from '../db/sql';
import { insertEvent } from './event.records';
import { newId } from './ids';
import { currentTime } from './clock-time';

export interface EventEnvelope {
  id: string;
  event: string;
  createdAt: string;
  data: unknown;
}

/**
 * Writes an event to the outbox. Call it with the transaction that makes the change, so the change
 * and its event commit together or not at all. The NOTIFY (sent at commit) wakes the webhook relay.
 */
export async function recordEvent(tx: AnyTx, accountId: string, type: string, data: object): Promise<EventEnvelope> {
  const id = newId('event');
  const createdAt = currentTime();
  await insertEvent(tx, { id, accountId, type, data, createdAt });
  return { id, event: type, createdAt: createdAt.toISOString(), data };
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
