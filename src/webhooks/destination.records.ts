import type { Prisma, WebhookDestination } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';

/** The columns a destination's signing secrets are read from (the current one, and the previous one while it lasts). */
export type SigningSecretColumns = Pick<
  WebhookDestination,
  | 'secret'
  | 'secretCiphertext'
  | 'secretKeyId'
  | 'previousSecretCiphertext'
  | 'previousSecretKeyId'
  | 'previousSecretExpiresAt'
>;

/** A destination of the account that is not deleted, or null (another account's too). */
export function readLiveDestination(db: Db | Tx, accountId: string, id: string): Promise<WebhookDestination | null> {
  return db.webhookDestination.findFirst({ where: { id, accountId, deletedAt: null } });
}

/** The account's destinations that are not deleted, oldest first. */
export function readLiveDestinations(db: Db, accountId: string): Promise<WebhookDestination[]> {
  return db.webhookDestination.findMany({
    where: { accountId, deletedAt: null },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

export function insertDestination(
  db: Db,
  data: Prisma.WebhookDestinationUncheckedCreateInput,
): Promise<WebhookDestination> {
  return db.webhookDestination.create({ data });
}

export function updateDestinationRow(
  db: Db | Tx,
  id: string,
  data: Prisma.WebhookDestinationUncheckedUpdateInput,
): Promise<WebhookDestination> {
  return db.webhookDestination.update({ where: { id }, data });
}

/**
 * Destinations whose secrets are not sealed under the key `keyId`: a plain-text secret, a current secret
 * under another key, or a rolled one still signing (at `now`) under another key.
 */
export function readDestinationsWithStaleSecrets(db: Db, keyId: string, now: Date): Promise<WebhookDestination[]> {
  return db.webhookDestination.findMany({
    where: {
      OR: [
        { secret: { not: null } },
        { secretKeyId: { not: keyId } },
        { previousSecretKeyId: { not: keyId }, previousSecretExpiresAt: { gt: now } },
      ],
    },
  });
}
