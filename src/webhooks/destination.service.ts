import type { WebhookDestination } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { notFound } from '../http/errors';
import { newId, newSecret } from '../lib/ids';
import { toUnixSeconds } from '../lib/time';
import type { DestinationInput, DestinationObject } from './webhook.schemas';

export function toDestinationObject(destination: WebhookDestination): DestinationObject {
  return {
    id: destination.id,
    object: 'webhook_destination',
    url: destination.url,
    active: destination.active,
    status: destination.active ? 'enabled' : 'disabled',
    created: toUnixSeconds(destination.createdAt),
    updated: toUnixSeconds(destination.updatedAt),
  };
}

/** A live destination of the account, or 404 (also for another account's: no existence leak). */
export async function findDestination(db: Db | Tx, accountId: string, id: string): Promise<WebhookDestination> {
  const destination = await db.webhookDestination.findFirst({ where: { id, accountId, deletedAt: null } });
  if (!destination) throw notFound('webhook destination', id);
  return destination;
}

/** A new destination is active at once; its secret is answered here and never again. */
export async function createDestination(prisma: Db, accountId: string, input: DestinationInput) {
  const destination = await prisma.webhookDestination.create({
    data: { id: newId('webhookDestination'), accountId, url: input.url, secret: newSecret('whsec') },
  });
  return { ...toDestinationObject(destination), secret: destination.secret };
}

export async function listDestinations(prisma: Db, accountId: string): Promise<DestinationObject[]> {
  const destinations = await prisma.webhookDestination.findMany({
    where: { accountId, deletedAt: null },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  return destinations.map(toDestinationObject);
}

async function changeDestination(
  prisma: Db,
  accountId: string,
  id: string,
  data: { url?: string; active?: boolean; deletedAt?: Date },
): Promise<WebhookDestination> {
  return prisma.$transaction(async (tx) => {
    const current = await findDestination(tx, accountId, id);
    return tx.webhookDestination.update({ where: { id: current.id }, data });
  });
}

/** Retries in flight go to the new URL: each attempt reads the destination when it is made. */
export async function updateDestination(prisma: Db, accountId: string, id: string, input: DestinationInput): Promise<DestinationObject> {
  return toDestinationObject(await changeDestination(prisma, accountId, id, { url: input.url }));
}

export async function setDestinationActive(prisma: Db, accountId: string, id: string, active: boolean): Promise<DestinationObject> {
  return toDestinationObject(await changeDestination(prisma, accountId, id, { active }));
}

/** Soft delete: the delivery log keeps naming the destination; retries in flight end (docs/api.md, Webhooks). */
export async function deleteDestination(prisma: Db, accountId: string, id: string) {
  const destination = await changeDestination(prisma, accountId, id, { active: false, deletedAt: new Date() });
  return { id: destination.id, object: 'webhook_destination' as const, deleted: true as const };
}
