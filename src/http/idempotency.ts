import { secretValue } from '../lib/secrets';
import { open, seal } from '../lib/encryption';
import crypto from 'node:crypto';
import type { Request } from 'express';
import { z } from 'zod';
import type { Db } from '../db/prisma';
import { ApiError, badRequest, conflict } from './errors';
import {
  claimKey,
  completeKey,
  findIdempotencyKey,
  releaseKey,
  sealRecordAnswer,
  unsealedKeys,
} from './idempotency.records';
import { logger } from './logger';

/**
 * decisions.md §11. A POST or PUT carrying `Idempotency-Key` is run once per (account, key): for 24 h
 * the same key with the same method, path and body answers the first response again (status and
 * body, with `Idempotent-Replayed: true`); with anything different it is a 400 naming the header.
 * A duplicate arriving while the first is still running gets 409 `idempotency_key_in_use` (it does
 * not wait). Results of the handler are stored, 4xx errors included; a 5xx or crash releases the
 * key so that the client can retry. A key still `in_progress` after STALE_SECONDS (its request died)
 * may be taken over by the same request; the money-moving handlers are themselves keyed on the
 * Idempotency-Key (pay, refund) or derive the id of what they create from the claim (claimSeed:
 * POST /subscriptions, POST /payment-plans), so a takeover never charges twice.
 * Stored answers are encrypted (sealAnswer below): some carry a secret, e.g. a webhook signing secret.
 */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const WINDOW = '24 hours';
const STALE_SECONDS = 60;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export const idempotencyHeaders = z.object({
  [IDEMPOTENCY_HEADER]: z
    .string()
    .regex(KEY_PATTERN)
    .optional()
    .describe('1 to 255 visible ASCII characters. The same key and body within 24 h answer the first response again.'),
});

// Bodies may hold card numbers: the stored digest is keyed, so it cannot be brute-forced offline.
const HASH_SECRET = secretValue('IDEMPOTENCY_HASH_SECRET');

/** JSON with object keys sorted, so that key order does not make two equal bodies differ. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestHash(req: Request): string {
  return crypto
    .createHmac('sha256', HASH_SECRET)
    .update(`${req.method}\n${req.path}\n${canonicalJson(req.body ?? {})}`)
    .digest('hex');
}

/** The header's value, or undefined when absent; 400 naming the header when malformed. */
export function readIdempotencyKey(req: Request): string | undefined {
  const raw = req.header(IDEMPOTENCY_HEADER);
  if (raw === undefined) return undefined;
  if (!KEY_PATTERN.test(raw))
    throw badRequest(`${IDEMPOTENCY_HEADER} must be 1 to 255 visible ASCII characters.`, IDEMPOTENCY_HEADER);
  return raw;
}

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** The claimed record's creation time (ms), or null when the key is held or answered already. */
async function claim(prisma: Db, accountId: string, key: string, req: Request, hash: string): Promise<number | null> {
  const claimed = await claimKey(
    prisma,
    { accountId, key, method: req.method, path: req.path, requestHash: hash },
    WINDOW,
    STALE_SECONDS,
  );
  return claimed ? claimed.createdAt.getTime() : null;
}

/**
 * A secret value the same for every run of one claim of a key, its first and any takeover of it (the
 * record keeps its creation time), and new once the key is used again after the window. Handlers that
 * create something derive its id from it (src/lib/ids.ts idFromSeed): a takeover after a request died
 * between its commit and the stored answer finds what that request created instead of creating (and
 * charging) it again.
 */
function claimSeed(accountId: string, key: string, createdAtMs: number): string {
  return crypto.createHmac('sha256', HASH_SECRET).update(`claim\n${accountId}\n${key}\n${createdAtMs}`).digest('hex');
}

/**
 * A name for one operation of one claim (`purpose`: what it is, e.g. `subscription-resume`), the same for
 * a takeover of the claim: an id a handler hands to another system that deduplicates on it, such as the
 * update id of a Temporal update (decisions.md §11). Derived from the claim's seed without revealing it.
 */
export function claimOperationId(seed: string, purpose: string): string {
  return `idem_${crypto.createHash('sha256').update(`operation\n${purpose}\n${seed}`).digest('hex').slice(0, 32)}`;
}

/**
 * How an answer body is stored: AES-256-GCM under SECRETS_ENCRYPTION_KEY (src/lib/encryption.ts), as
 * `{sealed_v1, key_id}`, bound to its row by the associated data. Answers that carry a secret (webhook
 * destination create and roll-secret answer the signing secret) must not sit in the table in clear
 * text for the replay window, and sealing every answer needs no list of which ones do.
 */
interface SealedAnswer {
  sealed_v1: string;
  key_id: string;
}

const associatedData = (accountId: string, key: string) => `idempotency:${accountId}:${key}`;

export function sealAnswer(accountId: string, key: string, body: unknown): SealedAnswer {
  const sealed = seal(JSON.stringify(body ?? null), associatedData(accountId, key));
  return { sealed_v1: sealed.ciphertext, key_id: sealed.keyId };
}

function isSealed(stored: unknown): stored is SealedAnswer {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return false;
  const fields = stored as Record<string, unknown>;
  return Object.keys(fields).length === 2 && typeof fields.sealed_v1 === 'string' && typeof fields.key_id === 'string';
}

/** The answer body a record holds: decrypted, or as is for a record stored before answers were sealed. */
export function openAnswer(accountId: string, key: string, stored: unknown): unknown {
  if (!isSealed(stored)) return stored;
  return JSON.parse(open({ ciphertext: stored.sealed_v1, keyId: stored.key_id }, associatedData(accountId, key)));
}

/**
 * Seals the answers of records stored in clear text (before this version); idempotent, the worker
 * runs it at start. Expired records are kept until their key is reused, so they are sealed too.
 * Returns the records changed.
 */
export async function sealStoredAnswers(prisma: Db): Promise<number> {
  const plain = await unsealedKeys(prisma);
  let changed = 0;
  for (const { accountId, key } of plain) {
    const row = await findIdempotencyKey(prisma, accountId, key);
    if (!row || row.responseBody === null || isSealed(row.responseBody)) continue;
    changed += await sealRecordAnswer(prisma, row, { ...sealAnswer(accountId, key, row.responseBody) });
  }
  return changed;
}

async function store(
  prisma: Db,
  accountId: string,
  key: string,
  hash: string,
  response: StoredResponse,
): Promise<void> {
  await completeKey(prisma, accountId, key, hash, {
    responseStatus: response.status,
    responseBody: { ...sealAnswer(accountId, key, response.body) },
  });
}

async function release(prisma: Db, accountId: string, key: string, hash: string): Promise<void> {
  await releaseKey(prisma, accountId, key, hash);
}

/**
 * Runs `run` at most once per key (see above). `run` answers null when the handler wrote the
 * response itself: nothing can be stored then, and the key is released.
 */
export async function withIdempotency(
  prisma: Db,
  accountId: string,
  key: string,
  req: Request,
  run: (seed: string) => Promise<StoredResponse | null>,
): Promise<(StoredResponse & { replayed: boolean }) | null> {
  const hash = requestHash(req);
  let claimed: number | null = null;
  // Two rounds: the row we collided with may have been released between our insert and our read.
  for (let round = 0; round < 2 && claimed === null; round++) {
    claimed = await claim(prisma, accountId, key, req, hash);
    if (claimed !== null) break;
    const existing = await findIdempotencyKey(prisma, accountId, key);
    if (!existing) continue;
    if (existing.requestHash !== hash) {
      throw badRequest(
        `${IDEMPOTENCY_HEADER} was already used with a different request (method, path or body); use a new key.`,
        IDEMPOTENCY_HEADER,
        'idempotency_key_reused',
      );
    }
    if (existing.state !== 'completed') {
      throw conflict(
        `A request with this ${IDEMPOTENCY_HEADER} is still in progress; retry once it has finished.`,
        'idempotency_key_in_use',
      );
    }
    return {
      status: existing.responseStatus!,
      body: openAnswer(accountId, key, existing.responseBody),
      replayed: true,
    };
  }
  if (claimed === null)
    throw conflict(
      `A request with this ${IDEMPOTENCY_HEADER} is still in progress; retry once it has finished.`,
      'idempotency_key_in_use',
    );

  let response: StoredResponse | null;
  try {
    response = await run(claimSeed(accountId, key, claimed));
  } catch (error) {
    await keepingAnswer(
      error instanceof ApiError && error.status < 500
        ? store(prisma, accountId, key, hash, { status: error.status, body: error.toBody() })
        : release(prisma, accountId, key, hash),
    );
    throw error;
  }
  await keepingAnswer(response ? store(prisma, accountId, key, hash, response) : release(prisma, accountId, key, hash));
  return response && { ...response, replayed: false };
}

/**
 * The request's work is done (or failed by itself): a failure to store or release its key (PostgreSQL
 * went away meanwhile) must not replace its answer with a 503, which says nothing happened. The key
 * stays claimed, as when the process dies at this point, and a retry with it takes the request over
 * (claimSeed: the same ids, so what was done is found, not done again).
 */
async function keepingAnswer(keyWrite: Promise<void>): Promise<void> {
  await keyWrite.catch((error: unknown) =>
    logger.warn({ err: error }, 'idempotency key not stored; a retry with it takes the request over'),
  );
}
