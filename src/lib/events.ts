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
