import type { WebhookDestination } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { notFound } from '../http/errors';
import { newId, newSecret } from '../lib/ids';
import { toUnixSeconds } from '../lib/time';
import { DAY_MS } from '../lib/durations';
import { currentKeyId, open, seal } from '../lib/encryption';
import type { DestinationInput, DestinationObject } from './webhook.schemas';
import {
  insertDestination,
  readDestinationsWithStaleSecrets,
  readLiveDestination,
  readLiveDestinations,
  updateDestinationRow,
  type SigningSecretColumns,
} from './destination.records';

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
  const destination = await readLiveDestination(db, accountId, id);
  if (!destination) throw notFound('webhook destination', id);
  return destination;
}

/** How long the old secret keeps signing beside the new one after roll-secret. */
export const SECRET_GRACE_MS = DAY_MS;

/** The signing secret of a row, encrypted with the destination id as associated data. */
function sealedSecret(destinationId: string, secret: string) {
  const sealed = seal(secret, destinationId);
  return { secret: null, secretCiphertext: sealed.ciphertext, secretKeyId: sealed.keyId };
}

/** A destination as its signing secrets are read. */
export type DestinationSecrets = Pick<WebhookDestination, 'id'> & SigningSecretColumns;

function currentSecret(destination: DestinationSecrets): string {
  if (destination.secretCiphertext && destination.secretKeyId) {
    return open({ ciphertext: destination.secretCiphertext, keyId: destination.secretKeyId }, destination.id);
  }
  if (destination.secret) return destination.secret; // written before encryption, until the worker's sweep
  throw new Error(`webhook destination ${destination.id} has no secret`);
}

/** The secrets a delivery is signed with: the current one, then the rolled one during its grace period. */
export function signingSecrets(destination: DestinationSecrets, now = new Date()): string[] {
  const secrets = [currentSecret(destination)];
  const {
    previousSecretCiphertext: ciphertext,
    previousSecretKeyId: keyId,
    previousSecretExpiresAt: expiresAt,
  } = destination;
  if (ciphertext && keyId && expiresAt && expiresAt > now) secrets.push(open({ ciphertext, keyId }, destination.id));
  return secrets;
}

/** A new destination is active at once; its secret is answered here and never again. */
export async function createDestination(prisma: Db, accountId: string, input: DestinationInput) {
  const id = newId('webhookDestination');
  const secret = newSecret('whsec');
  const destination = await insertDestination(prisma, { id, accountId, url: input.url, ...sealedSecret(id, secret) });
  return { ...toDestinationObject(destination), secret };
}

/**
 * roll-secret: a new secret, answered once; the current one keeps signing beside it (a second `v1=`)
 * for SECRET_GRACE_MS. Rolling again within the grace period drops the oldest.
 */
export async function rollDestinationSecret(prisma: Db, accountId: string, id: string) {
  const secret = newSecret('whsec');
  const destination = await prisma.$transaction(async (tx) => {
    const current = await findDestination(tx, accountId, id);
    const previous = seal(currentSecret(current), current.id);
    return updateDestinationRow(tx, current.id, {
      ...sealedSecret(current.id, secret),
      previousSecretCiphertext: previous.ciphertext,
      previousSecretKeyId: previous.keyId,
      previousSecretExpiresAt: new Date(Date.now() + SECRET_GRACE_MS),
    });
  });
  return { ...toDestinationObject(destination), secret };
}

/**
 * Encrypts rows still holding a plain-text secret and re-encrypts those under an older key (after
 * SECRETS_ENCRYPTION_KEY rotated). Idempotent; the worker runs it at start. Returns the rows changed.
 */
export async function encryptStoredSecrets(prisma: Db): Promise<number> {
  const keyId = currentKeyId();
  const stale = await readDestinationsWithStaleSecrets(prisma, keyId, new Date());
  for (const destination of stale) {
    const live = signingSecrets(destination);
    const previous = live[1] === undefined ? undefined : seal(live[1], destination.id);
    await updateDestinationRow(prisma, destination.id, {
      ...sealedSecret(destination.id, live[0]!),
      previousSecretCiphertext: previous?.ciphertext ?? null,
      previousSecretKeyId: previous?.keyId ?? null,
      previousSecretExpiresAt: previous ? destination.previousSecretExpiresAt : null,
    });
  }
  return stale.length;
}

export async function listDestinations(prisma: Db, accountId: string): Promise<DestinationObject[]> {
  return (await readLiveDestinations(prisma, accountId)).map(toDestinationObject);
}

async function changeDestination(
  prisma: Db,
  accountId: string,
  id: string,
  data: { url?: string; active?: boolean; deletedAt?: Date },
): Promise<WebhookDestination> {
  return prisma.$transaction(async (tx) => {
    const current = await findDestination(tx, accountId, id);
    return updateDestinationRow(tx, current.id, data);
  });
}

/** Retries in flight go to the new URL: each attempt reads the destination when it is made. */
export async function updateDestination(
  prisma: Db,
  accountId: string,
  id: string,
  input: DestinationInput,
): Promise<DestinationObject> {
  return toDestinationObject(await changeDestination(prisma, accountId, id, { url: input.url }));
}

export async function setDestinationActive(
  prisma: Db,
  accountId: string,
  id: string,
  active: boolean,
): Promise<DestinationObject> {
  return toDestinationObject(await changeDestination(prisma, accountId, id, { active }));
}

/** Soft delete: the delivery log keeps naming the destination; retries in flight end (docs/api.md, Webhooks). */
export async function deleteDestination(prisma: Db, accountId: string, id: string) {
  const destination = await changeDestination(prisma, accountId, id, { active: false, deletedAt: new Date() });
  return { id: destination.id, object: 'webhook_destination' as const, deleted: true as const };
}
