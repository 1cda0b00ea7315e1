import type { ApiKey } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { ROLES, type Principal, type Role } from '../http/auth';
import { ApiError, notFound } from '../http/errors';
import { columnValue } from '../lib/columns';
import { toUnixSeconds } from '../lib/time';
import { HOUR_MS } from '../lib/durations';
import { createApiKey, expireApiKey, rotateApiKey } from './account.service';
import type { OperatorActor } from './operator-action.records';
import { readAccountApiKey, readAccountApiKeys, readExistingApiKey } from './account.records';
import type { ApiKeyObject, CreateApiKeyInput, RotateApiKeyInput } from './api-key.schemas';

/**
 * The account's API keys through the REST API (docs/api.md "API keys"): the same functions as the
 * key:* commands, scoped to the caller's account and bounded by the caller's role.
 */

const RANK: Record<Role, number> = { standard: 0, developer: 1, superadmin: 2 };

export function toApiKeyObject(key: ApiKey, now = new Date()): ApiKeyObject {
  return {
    id: key.id,
    object: 'api_key',
    role: columnValue(ROLES, key.role, 'api_keys.role'),
    hint: `${key.keyPrefix}…`,
    status: !key.expiresAt ? 'active' : key.expiresAt > now ? 'expiring' : 'revoked',
    created: toUnixSeconds(key.createdAt),
    last_used: toUnixSeconds(key.lastUsedAt),
    expires: toUnixSeconds(key.expiresAt),
    replaced_by: key.replacedById,
  };
}

/** Who made the change, for operator_actions (as the commands record theirs). */
function actorOf(principal: Principal, command: string): OperatorActor {
  return {
    operator: principal.userId ? `user:${principal.userId}` : `key:${principal.keyId}`,
    runAs: 'api',
    command,
  };
}

/**
 * A key with a role above the caller's is out of reach: issuing one would raise the caller's own
 * rights, and rotating one would answer its successor's secret (same role) to the caller.
 */
function assertWithinRole(principal: Principal, role: Role, param?: string): void {
  if (RANK[role] > RANK[principal.role]) {
    throw new ApiError(
      'permission_error',
      'role_above_yours',
      `A ${principal.role} cannot manage ${role} keys: ask a ${role} of this account.`,
      param,
    );
  }
}

/** A key of the account, or 404 (also another account's: no existence leak). */
async function findAccountKey(db: Db | Tx, accountId: string, id: string): Promise<ApiKey> {
  const key = await readAccountApiKey(db, accountId, id);
  if (!key) throw notFound('API key', id);
  return key;
}

function assertNotRevoked(key: ApiKey, now: Date): void {
  if (key.expiresAt && key.expiresAt <= now) {
    throw new ApiError('conflict', 'api_key_revoked', `API key ${key.id} no longer works; create a new key instead.`);
  }
}

/** The account's keys, newest first; never a key itself. */
export async function listAccountKeys(prisma: Db, accountId: string): Promise<ApiKeyObject[]> {
  const now = new Date();
  const keys = await readAccountApiKeys(prisma, accountId);
  return keys.map((key) => toApiKeyObject(key, now));
}

/** A new key of `role` (at most the caller's); its secret is in this answer and nowhere else. */
export async function createAccountKey(prisma: Db, principal: Principal, input: CreateApiKeyInput) {
  assertWithinRole(principal, input.role, 'role');
  return prisma.$transaction(async (tx) => {
    const created = await createApiKey(tx, principal.accountId, input.role, actorOf(principal, 'POST /api-keys'));
    const key = await readExistingApiKey(tx, created.key_id);
    return { ...toApiKeyObject(key), secret: created.api_key };
  });
}

/**
 * A key does not end its own requests: a script that revokes "the old keys" from the list, or rotates
 * itself without an overlap, would lock itself out mid-run. Another key or the dashboard ends it.
 */
function assertNotSelf(principal: Principal, id: string, what: string): void {
  if (principal.keyId === id) {
    throw new ApiError(
      'conflict',
      'api_key_in_use',
      `This request is made with API key ${id}, which cannot ${what}: use another key or the dashboard.`,
    );
  }
}

/** Ends the key now: requests with it answer 401 at once (docs/api.md, "Conventions": within 30 s at most). */
export async function revokeAccountKey(prisma: Db, principal: Principal, id: string): Promise<ApiKeyObject> {
  return prisma.$transaction(async (tx) => {
    const now = new Date();
    const key = await findAccountKey(tx, principal.accountId, id);
    assertWithinRole(principal, columnValue(ROLES, key.role, 'api_keys.role'));
    assertNotRevoked(key, now);
    assertNotSelf(principal, id, 'revoke itself');
    await expireApiKey(tx, id, now, actorOf(principal, 'POST /api-keys/{id}/revoke'));
    return toApiKeyObject(await readExistingApiKey(tx, id), now);
  });
}

/** Rotation with an overlap, refused like `npm run key:rotate` when an earlier successor still works. */
export async function rotateAccountKey(prisma: Db, principal: Principal, id: string, input: RotateApiKeyInput) {
  const now = new Date();
  const key = await findAccountKey(prisma, principal.accountId, id);
  assertWithinRole(principal, columnValue(ROLES, key.role, 'api_keys.role'));
  assertNotRevoked(key, now);
  const overlapHours = input.overlap_hours ?? 24;
  if (overlapHours === 0) assertNotSelf(principal, id, 'rotate itself without an overlap');
  const result = await rotateApiKey(prisma, id, overlapHours * HOUR_MS, {
    force: input.force,
    actor: actorOf(principal, 'POST /api-keys/{id}/rotate'),
    now,
  });
  switch (result.outcome) {
    case 'unknown_key':
      throw notFound('API key', id);
    case 'has_live_successor':
      throw new ApiError(
        'conflict',
        'api_key_already_rotated',
        `API key ${id} was already rotated to ${result.successor.key_id}, which still works. ` +
          `Give clients that key (or revoke it first); with force: true a second live key is issued.`,
      );
    case 'rotated': {
      const [next, previous] = await Promise.all([
        readExistingApiKey(prisma, result.created.key_id),
        readExistingApiKey(prisma, id),
      ]);
      return {
        key: { ...toApiKeyObject(next, now), secret: result.created.api_key },
        previous: toApiKeyObject(previous, now),
        left_live: result.replaced?.key_id ?? null,
      };
    }
  }
}
