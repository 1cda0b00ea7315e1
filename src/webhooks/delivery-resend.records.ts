import type { WebhookDelivery } from '../generated/prisma/client';
import type { Tx } from '../db/prisma';
import { LOGGED_DELIVERY, type LoggedDelivery } from './delivery-log.records';

/**
 * The account's delivery `id`, its row locked for the transaction (so two resends of it run one after
 * the other), with whether its destination can still receive (active and not deleted); null for an
 * unknown id or another account's.
 */
export async function lockDelivery(
  tx: Tx,
  accountId: string,
  id: string,
): Promise<{ delivery: WebhookDelivery; destinationActive: boolean } | null> {
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM webhook_deliveries WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`;
  if (locked.length === 0) return null;
  const delivery = await tx.webhookDelivery.findUniqueOrThrow({ where: { id }, include: { destination: true } });
  const { destination, ...row } = delivery;
  return { delivery: row, destinationActive: destination.active && destination.deletedAt === null };
}

/** The deliveries of the event to the destination (the relay's and every resend): the last resend number and any still running. */
export async function deliveriesOfPair(
  tx: Tx,
  eventId: string,
  destinationId: string,
): Promise<{ lastResend: number; running: boolean }> {
  const rows = await tx.webhookDelivery.findMany({
    where: { eventId, destinationId },
    select: { resend: true, status: true },
  });
  return {
    lastResend: Math.max(0, ...rows.map((row) => row.resend)),
    running: rows.some((row) => row.status === 'pending' || row.status === 'retry'),
  };
}

/** A new delivery of an event already delivered once: the same envelope, its own attempts. */
export function insertResend(
  tx: Tx,
  row: Pick<WebhookDelivery, 'id' | 'accountId' | 'eventId' | 'eventType' | 'destinationId' | 'resend'> & {
    payload: object;
  },
): Promise<LoggedDelivery> {
  return tx.webhookDelivery.create({ data: row, include: LOGGED_DELIVERY });
}
