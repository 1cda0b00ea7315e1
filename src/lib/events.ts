import type { Tx } from '../db/prisma';
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
export async function recordEvent(tx: Tx, accountId: string, type: string, data: object): Promise<EventEnvelope> {
  const id = newId('event');
  const createdAt = currentTime();
  await tx.event.create({ data: { id, accountId, type, data: data as object, createdAt } });
  await tx.$executeRaw`SELECT pg_notify('billing_events', ${id})`;
  return { id, event: type, createdAt: createdAt.toISOString(), data };
}
