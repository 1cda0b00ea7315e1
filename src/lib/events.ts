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
 * One statement for both, outside Prisma's query pipeline (docs/performance.md: a charged
 * subscription creation writes four events).
 */
export async function recordEvent(tx: Tx, accountId: string, type: string, data: object): Promise<EventEnvelope> {
  const id = newId('event');
  const createdAt = currentTime();
  await tx.$executeRaw`
    WITH inserted AS (
      INSERT INTO events (id, account_id, type, data, created_at) VALUES (${id}, ${accountId}, ${type}, ${JSON.stringify(data)}::jsonb, ${createdAt})
      RETURNING id
    )
    SELECT pg_notify('billing_events', id) FROM inserted`;
  return { id, event: type, createdAt: createdAt.toISOString(), data };
}
