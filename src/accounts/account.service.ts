import { columnValue } from '../lib/columns';
import type { Db, Tx } from '../db/prisma';
import { hashApiKey, ROLES, type Role } from '../http/auth';
import { expiringCache } from '../lib/expiring-cache';
import { newId, newSecret } from '../lib/ids';
import { recordOperatorAction, type OperatorActor } from './operator-action.records';
import {
  insertAccountRow,
  insertApiKey,
  lockApiKey,
  readAccountApiKeys,
  readApiKey,
  readGatewayAccount,
  updateApiKeyRow,
  type GatewayAccount,
} from './account.records';

export const GATEWAY_KINDS = ['card_processor', 'bank_processor'] as const;
export type GatewayKind = (typeof GATEWAY_KINDS)[number];

/**
 * How long a process keeps what chooses an account's processor (read by the payment registry at every charge),
 * as long as it keeps the account's connection (`CREDENTIALS_CACHE_MS`): every process forgets it when PostgreSQL
 * announces a change, and sees a change within this time should it miss the announcement (docs/decisions.md §48).
 */
export const GATEWAY_ACCOUNT_CACHE_MS = 30_000;
const gatewayAccounts = expiringCache<GatewayAccount | undefined>(GATEWAY_ACCOUNT_CACHE_MS);

/** What chooses the account's processor, kept `GATEWAY_ACCOUNT_CACHE_MS`; undefined (not kept): no such account. */
export async function gatewayAccountOf(db: Db, accountId: string): Promise<GatewayAccount | undefined> {
  const account = await gatewayAccounts.get(accountId, () => readGatewayAccount(db, accountId));
  if (!account) gatewayAccounts.forget(accountId);
  return account;
}

/**
 * After a change of the account's processor is committed (by this process, or announced by PostgreSQL): this
 * process reads it again at the next charge. `null`: every account's (announcements may have been missed).
 */
export function forgetGatewayAccount(accountId: string | null): void {
  if (accountId === null) gatewayAccounts.forgetAll();
  else gatewayAccounts.forget(accountId);
}

export interface CreatedKey {
  key_id: string;
  account_id: string;
  api_key: string;
  role: Role;
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Issues a key; the secret is returned once and only its SHA-256 is stored. With `actor`, the change is recorded (operator_actions). */
export async function createApiKey(
  prisma: Db | Tx,
  accountId: string,
  role: Role,
  actor?: OperatorActor,
): Promise<CreatedKey> {
  const apiKey = newSecret('sk_test');
  const key = await insertApiKey(prisma, {
    id: newId('apiKey'),
    accountId,
    role,
    keyHash: hashApiKey(apiKey),
    keyPrefix: apiKey.slice(0, 12),
  });
  if (actor)
    await recordOperatorAction(prisma, actor, { accountId, target: key.id, detail: { created: key.id, role } });
  return { key_id: key.id, account_id: accountId, api_key: apiKey, role };
}

export interface KeyListing {
  key_id: string;
  key_prefix: string;
  role: Role;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  status: 'active' | 'expiring' | 'revoked';
  /** The key its latest rotation issued. */
  replaced_by: string | null;
}

/** The account's keys, newest first; never the key itself (only its first characters). */
export async function listApiKeys(prisma: Db, accountId: string, now = new Date()): Promise<KeyListing[]> {
  const keys = await readAccountApiKeys(prisma, accountId);
  return keys.map((key) => ({
    key_id: key.id,
    key_prefix: key.keyPrefix,
    role: columnValue(ROLES, key.role, 'api_keys.role'),
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
    status: !key.expiresAt ? 'active' : key.expiresAt > now ? 'expiring' : 'revoked',
    replaced_by: key.replacedById,
  }));
}

/**
 * Ends a key at `at` (now: revoked). A key already ending sooner keeps its earlier end. Returns the
 * key's account and end, or undefined for an unknown key. With `actor`, the change is recorded.
 */
export async function expireApiKey(
  prisma: Db | Tx,
  keyId: string,
  at: Date,
  actor?: OperatorActor,
): Promise<{ accountId: string; role: Role; expiresAt: Date } | undefined> {
  const key = await readApiKey(prisma, keyId);
  if (!key) return undefined;
  const expiresAt = key.expiresAt && key.expiresAt < at ? key.expiresAt : at;
  await updateApiKeyRow(prisma, keyId, { expiresAt });
  if (actor)
    await recordOperatorAction(prisma, actor, {
      accountId: key.accountId,
      target: keyId,
      detail: { expires_at: expiresAt.toISOString() },
    });
  return { accountId: key.accountId, role: columnValue(ROLES, key.role, 'api_keys.role'), expiresAt };
}

export type RotationResult =
  | {
      outcome: 'rotated';
      created: CreatedKey & { old_key_expires_at: string };
      replaced: { key_id: string; expires_at: string | null } | null;
    }
  | { outcome: 'unknown_key' }
  /** The key was rotated before and that successor still works: rotating again would leave two live successors. */
  | { outcome: 'has_live_successor'; successor: { key_id: string; expires_at: string | null } };

/**
 * Rotation with an overlap: a new key with the same account and role, and the old key ending after
 * `overlapMs`, so clients switch over without an outage. A key whose previous successor is still live
 * (not ended) is refused unless `force`; forced, the answer names the successor it leaves live
 * (`replaced`). The key's row is locked, so two rotations at once cannot both pass the check.
 */
export async function rotateApiKey(
  prisma: Db,
  keyId: string,
  overlapMs: number,
  options: { force?: boolean; actor?: OperatorActor; now?: Date } = {},
): Promise<RotationResult> {
  const now = options.now ?? new Date();
  return prisma.$transaction(async (tx) => {
    const locked = await lockApiKey(tx, keyId);
    if (!locked) return { outcome: 'unknown_key' };
    const successor = locked.replacedById ? await readApiKey(tx, locked.replacedById) : null;
    const live =
      successor && (!successor.expiresAt || successor.expiresAt > now)
        ? { key_id: successor.id, expires_at: successor.expiresAt?.toISOString() ?? null }
        : null;
    if (live && !options.force) return { outcome: 'has_live_successor', successor: live };
    const old = (await expireApiKey(tx, keyId, new Date(now.getTime() + overlapMs)))!;
    const created = await createApiKey(tx, old.accountId, old.role);
    await updateApiKeyRow(tx, keyId, { replacedById: created.key_id });
    if (options.actor) {
      await recordOperatorAction(tx, options.actor, {
        accountId: old.accountId,
        target: keyId,
        detail: {
          rotated_to: created.key_id,
          expires_at: old.expiresAt.toISOString(),
          ...(live ? { forced: true, previous_successor: live.key_id } : {}),
        },
      });
    }
    return {
      outcome: 'rotated',
      created: { ...created, old_key_expires_at: old.expiresAt.toISOString() },
      replaced: live,
    };
  });
}

export async function createAccount(
  prisma: Db,
  input: { name: string; role: Role; paymentPlans?: boolean; gatewayKind?: GatewayKind },
  actor?: OperatorActor,
): Promise<CreatedKey & { name: string; payment_plans: boolean; gateway_kind: GatewayKind }> {
  if (actor) return prisma.$transaction((tx) => insertAccount(tx, input, actor));
  return insertAccount(prisma, input);
}

async function insertAccount(
  prisma: Db | Tx,
  input: { name: string; role: Role; paymentPlans?: boolean; gatewayKind?: GatewayKind },
  actor?: OperatorActor,
): Promise<CreatedKey & { name: string; payment_plans: boolean; gateway_kind: GatewayKind }> {
  const account = await insertAccountRow(prisma, {
    id: newId('account'),
    name: input.name,
    paymentPlansEnabled: input.paymentPlans ?? false,
    gatewayKind: input.gatewayKind ?? 'card_processor',
  });
  if (actor) {
    await recordOperatorAction(prisma, actor, {
      accountId: account.id,
      target: account.id,
      detail: {
        created: account.id,
        name: account.name,
        payment_plans: account.paymentPlansEnabled,
        gateway_kind: account.gatewayKind,
      },
    });
  }
  const key = await createApiKey(prisma, account.id, input.role, actor);
  return {
    ...key,
    name: account.name,
    payment_plans: account.paymentPlansEnabled,
    gateway_kind: columnValue(GATEWAY_KINDS, account.gatewayKind, 'accounts.gateway_kind'),
  };
}
