import type { IdempotencyKey, Prisma } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { queryRows, type Statement } from '../db/sql';

/** The idempotency_keys statements of src/http/idempotency.ts (docs/decisions.md §11). */

/**
 * Claims (account, key) for a request: a new record, or one whose window (`$6`) has passed, or one
 * left in progress for `$7` seconds by the same request (its request died). Answers no row when the
 * key is held or answered already.
 */
const CLAIM_KEY: Statement = {
  name: 'idempotency_key_claim',
  text: `INSERT INTO idempotency_keys (account_id, key, method, path, request_hash, state, created_at, locked_at)
    VALUES ($1, $2, $3, $4, $5, 'in_progress', now(), now())
    ON CONFLICT (account_id, key) DO UPDATE SET
      method = EXCLUDED.method, path = EXCLUDED.path, request_hash = EXCLUDED.request_hash,
      state = 'in_progress', response_status = NULL, response_body = NULL,
      created_at = CASE WHEN idempotency_keys.created_at < now() - $6::interval THEN now() ELSE idempotency_keys.created_at END,
      locked_at = now()
    WHERE idempotency_keys.created_at < now() - $6::interval
       OR (idempotency_keys.state = 'in_progress'
           AND idempotency_keys.locked_at < now() - make_interval(secs => $7)
           AND idempotency_keys.request_hash = EXCLUDED.request_hash)
    RETURNING created_at AS "createdAt"`,
};

/** The claimed record's creation time, or undefined when the key is held or answered already. */
export async function claimKey(
  prisma: Db,
  claim: Pick<IdempotencyKey, 'accountId' | 'key' | 'method' | 'path' | 'requestHash'>,
  window: string,
  staleSeconds: number,
): Promise<Pick<IdempotencyKey, 'createdAt'> | undefined> {
  const [claimed] = await queryRows<Pick<IdempotencyKey, 'createdAt'>>(prisma, CLAIM_KEY, [
    claim.accountId,
    claim.key,
    claim.method,
    claim.path,
    claim.requestHash,
    window,
    staleSeconds,
  ]);
  return claimed;
}

const UNSEALED_KEYS: Statement = {
  name: 'idempotency_keys_unsealed',
  text: `SELECT account_id AS "accountId", key FROM idempotency_keys
    WHERE response_body IS NOT NULL AND (jsonb_typeof(response_body) <> 'object' OR NOT (response_body ? 'sealed_v1'))`,
};

/** Records whose answer is stored in clear text (written before answers were sealed). */
export async function unsealedKeys(prisma: Db): Promise<Pick<IdempotencyKey, 'accountId' | 'key'>[]> {
  return queryRows<Pick<IdempotencyKey, 'accountId' | 'key'>>(prisma, UNSEALED_KEYS, []);
}

/** The record of (account, key), or null. */
export function findIdempotencyKey(prisma: Db, accountId: string, key: string): Promise<IdempotencyKey | null> {
  return prisma.idempotencyKey.findUnique({ where: { accountId_key: { accountId, key } } });
}

/** Sets the answer of the record if it is still the one read (same request and state): how many it changed (0 or 1). */
export async function sealRecordAnswer(
  prisma: Db,
  record: Pick<IdempotencyKey, 'accountId' | 'key' | 'requestHash' | 'state'>,
  responseBody: Prisma.InputJsonObject,
): Promise<number> {
  const { accountId, key, requestHash, state } = record;
  const { count } = await prisma.idempotencyKey.updateMany({
    where: { accountId, key, requestHash, state },
    data: { responseBody },
  });
  return count;
}

/** Stores the answer of the request that holds the key (in progress under `requestHash`). */
export async function completeKey(
  prisma: Db,
  accountId: string,
  key: string,
  requestHash: string,
  answer: { responseStatus: number; responseBody: Prisma.InputJsonObject },
): Promise<void> {
  await prisma.idempotencyKey.updateMany({
    where: { accountId, key, requestHash, state: 'in_progress' },
    data: { state: 'completed', ...answer },
  });
}

/** Lets the key go if the request under `requestHash` still holds it. */
export async function releaseKey(prisma: Db, accountId: string, key: string, requestHash: string): Promise<void> {
  await prisma.idempotencyKey.deleteMany({ where: { accountId, key, requestHash, state: 'in_progress' } });
}
