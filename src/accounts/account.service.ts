import { columnValue } from '../lib/columns';
import type { Db } from '../db/prisma';
import { hashApiKey, ROLES, type Role } from '../http/auth';
import { newId, newSecret } from '../lib/ids';

export const GATEWAY_KINDS = ['card_processor', 'bank_processor'] as const;
export type GatewayKind = (typeof GATEWAY_KINDS)[number];

export interface CreatedKey {
  key_id: string;
  account_id: string;
  api_key: string;
  role: Role;
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Issues a key; the secret is returned once and only its SHA-256 is stored. */
export async function createApiKey(prisma: Db, accountId: string, role: Role): Promise<CreatedKey> {
  const apiKey = newSecret('sk_test');
  const key = await prisma.apiKey.create({
    data: { id: newId('apiKey'), accountId, role, keyHash: hashApiKey(apiKey), keyPrefix: apiKey.slice(0, 12) },
  });
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
}

/** The account's keys, newest first; never the key itself (only its first characters). */
export async function listApiKeys(prisma: Db, accountId: string, now = new Date()): Promise<KeyListing[]> {
  const keys = await prisma.apiKey.findMany({ where: { accountId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return keys.map((key) => ({
    key_id: key.id,
    key_prefix: key.keyPrefix,
    role: columnValue(ROLES, key.role, 'api_keys.role'),
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
    status: !key.expiresAt ? 'active' : key.expiresAt > now ? 'expiring' : 'revoked',
  }));
}

/**
 * Ends a key at `at` (now: revoked). A key already ending sooner keeps its earlier end. Returns the
 * key's account and end, or undefined for an unknown key.
 */
export async function expireApiKey(prisma: Db, keyId: string, at: Date): Promise<{ accountId: string; role: Role; expiresAt: Date } | undefined> {
  const key = await prisma.apiKey.findUnique({ where: { id: keyId } });
  if (!key) return undefined;
  const expiresAt = key.expiresAt && key.expiresAt < at ? key.expiresAt : at;
  await prisma.apiKey.update({ where: { id: keyId }, data: { expiresAt } });
  return { accountId: key.accountId, role: columnValue(ROLES, key.role, 'api_keys.role'), expiresAt };
}

/**
 * Rotation with an overlap: a new key with the same account and role, and the old key ending after
 * `overlapMs`, so clients switch over without an outage.
 */
export async function rotateApiKey(prisma: Db, keyId: string, overlapMs: number): Promise<(CreatedKey & { old_key_expires_at: string }) | undefined> {
  return prisma.$transaction(async (tx) => {
    const old = await expireApiKey(tx as Db, keyId, new Date(Date.now() + overlapMs));
    if (!old) return undefined;
    const created = await createApiKey(tx as Db, old.accountId, old.role);
    return { ...created, old_key_expires_at: old.expiresAt.toISOString() };
  });
}

export async function createAccount(
  prisma: Db,
  input: { name: string; role: Role; paymentPlans?: boolean; gatewayKind?: GatewayKind },
): Promise<CreatedKey & { name: string; payment_plans: boolean; gateway_kind: GatewayKind }> {
  const account = await prisma.account.create({
    data: {
      id: newId('account'),
      name: input.name,
      paymentPlansEnabled: input.paymentPlans ?? false,
      gatewayKind: input.gatewayKind ?? 'card_processor',
    },
  });
  const key = await createApiKey(prisma, account.id, input.role);
  return { ...key, name: account.name, payment_plans: account.paymentPlansEnabled, gateway_kind: columnValue(GATEWAY_KINDS, account.gatewayKind, 'accounts.gateway_kind') };
}
