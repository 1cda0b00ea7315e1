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
