import type pg from 'pg';
import type { ApiKey } from '../generated/prisma/client';
import type { Db } from '../db/prisma';

// The api_keys statements of the authenticator (src/http/auth.ts). They stay in the plumbing rather than
// in the accounts module: accounts' schemas read ROLES from auth.ts while they load, so auth.ts loading
// accounts' index.ts would hand them a half-loaded file.

/** The key whose SHA-256 is `keyHash`, with what a request needs of it, or null. */
export function findApiKeyByHash(
  prisma: Db,
  keyHash: string,
): Promise<Pick<ApiKey, 'id' | 'accountId' | 'role' | 'expiresAt'> | null> {
  return prisma.apiKey.findUnique({
    where: { keyHash },
    select: { id: true, accountId: true, role: true, expiresAt: true },
  });
}

export async function stampApiKeyUsed(prisma: Db, id: string, at: Date): Promise<void> {
  await prisma.apiKey.update({ where: { id }, data: { lastUsedAt: at }, select: { id: true } });
}

/**
 * The channel PostgreSQL announces a key's end on (revoked, rotated or deleted), with the key's SHA-256: the
 * api_keys table's trigger sends it at commit, whoever changed the row (docs/api.md, "API keys").
 */
export const API_KEY_ENDS_CHANNEL = 'api_key_ends';

/** Subscribes `client` to those announcements for as long as its session lasts. */
export async function listenForApiKeyEnds(client: pg.Client): Promise<void> {
  await client.query(`LISTEN ${API_KEY_ENDS_CHANNEL}`);
}
