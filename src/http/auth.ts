import { columnValue } from '../lib/columns';
import crypto from 'node:crypto';
import type { Db } from '../db/prisma';
import { ApiError } from './errors';
import type { AuthFailureLimiter } from './rate-limit';
import { findApiKeyByHash, stampApiKeyUsed, listenForApiKeyEnds } from './auth.records';
import { notificationListener } from '../db/notification-listener';
import type { Logger } from './logger';

export const ROLES = ['standard', 'developer', 'superadmin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Roles that manage the account's configuration: webhooks (spec: only Developer and SuperAdmin) and
 * account settings such as dunning. Other keys get 403.
 */
export const ADMIN_ROLES: readonly Role[] = ['developer', 'superadmin'];

/** Settings only the account's owners change, such as turning payment plans on. */
export const SUPERADMIN_ROLES: readonly Role[] = ['superadmin'];

/**
 * Who makes a request: an API key, or a dashboard user's session (src/dashboard-auth/), which carries
 * its membership's role on the session's current account. Either way the same routes and rules apply.
 */
export interface Principal {
  accountId: string;
  role: Role;
  /** The API key, for a request made with one. */
  keyId?: string;
  /** The dashboard user and session, for a request made with a session cookie. */
  userId?: string;
  sessionId?: string;
}

/** What the per-credential rate limit counts against: the key, or the user across their sessions. */
export function rateLimitSubject(principal: Principal): string {
  return principal.keyId ?? `user:${principal.userId}`;
}

/**
 * A key's SHA-256 in hex. Node's one-shot `crypto.hash` (from 20.12) where there is one: it digests a key in about
 * half the time of a Hash object made, fed and finished, and every authenticated request digests its key
 * (docs/performance.md, "Reads, fourth pass").
 */
export const hashApiKey: (key: string) => string =
  typeof crypto.hash === 'function'
    ? (key) => crypto.hash('sha256', key, 'hex')
    : (key) => crypto.createHash('sha256').update(key).digest('hex');

/** How long a looked-up key is trusted without asking the database again (docs/api.md "API keys"). */
export const AUTH_CACHE_MS = 30_000;

/**
 * The ends of keys (revoked, rotated, deleted) as PostgreSQL announces them to this process: `forget` is told
 * each key's SHA-256, or `null` when announcements may have been missed (the listening connection was lost).
 */
export interface ApiKeyEnds {
  subscribe(forget: (keyHash: string | null) => void): void;
  close(): Promise<void>;
}

/** Listens for the api_keys trigger's announcements on a connection of its own (one per API process). */
export async function listenForApiKeyEndsAt(databaseUrl: string, log: Logger): Promise<ApiKeyEnds> {
  const subscribers: ((keyHash: string | null) => void)[] = [];
  const tell = (keyHash: string | null) => subscribers.forEach((forget) => forget(keyHash));
  const listener = notificationListener({
    databaseUrl,
    name: 'API key ends',
    log,
    listen: listenForApiKeyEnds,
    onNotification: (payload) => tell(payload ?? null),
    onGap: () => tell(null),
  });
  await listener.start();
  return { subscribe: (forget) => subscribers.push(forget), close: listener.close };
}

/**
 * Resolves `cc-api-key` to its account. Keys are high-entropy random strings, so a SHA-256 digest is
 * a safe lookup key. Lookups are cached for `cacheMs` (never past the key's expiry): an authenticated
 * request then costs no extra query. A key's end announced by PostgreSQL (`keyEnds`) removes it from the
 * cache at once; without announcements (or while they are lost) a key revoked by another process answers
 * 401 within `cacheMs`. Each lookup also stamps `last_used_at`, so it is exact to within the cache lifetime.
 */
export function createAuthenticator(
  prisma: Db,
  cacheMs = AUTH_CACHE_MS,
  failures?: AuthFailureLimiter,
  keyEnds?: ApiKeyEnds,
) {
  const cache = new Map<string, { principal: Principal; expires: number }>();
  /** Digests of keys found valid before: their lookups are never held up by the failed-authentication limit. */
  const seenValid = new Set<string>();
  /**
   * Counts the ends announced: a lookup that read a key before an end was announced does not cache what it read
   * (the end may be that key's, committed after the read).
   */
  let endsSeen = 0;
  keyEnds?.subscribe((keyHash) => {
    endsSeen += 1;
    if (keyHash === null) cache.clear();
    else {
      cache.delete(keyHash);
      seenValid.delete(keyHash);
    }
  });
  /**
   * `clientAddress`: where the request came from, for the failed-authentication limit; asked only for a key not in the
   * cache (the client's address behind a proxy is parsed from its headers: not worth it for a key found at once).
   */
  return async function authenticate(
    rawKey: string | undefined,
    clientAddress: () => string | undefined = () => undefined,
  ): Promise<Principal> {
    if (!rawKey) {
      throw new ApiError(
        'authentication_error',
        'api_key_missing',
        'Missing API key: send it in the cc-api-key header.',
      );
    }
    const hash = hashApiKey(rawKey);
    const now = Date.now();
    const cached = cache.get(hash);
    if (cached && cached.expires > now) return cached.principal;
    cache.delete(hash);
    const address = clientAddress() ?? 'unknown';
    if (!seenValid.has(hash)) await failures?.assertAllowed(address);
    const endsBefore = endsSeen;
    const key = await findApiKeyByHash(prisma, hash);
    if (!key || (key.expiresAt && key.expiresAt.getTime() <= now)) {
      await failures?.recordFailure(address);
      throw new ApiError('authentication_error', 'api_key_invalid', 'Invalid API key provided.');
    }
    await stampApiKeyUsed(prisma, key.id, new Date(now));
    const principal: Principal = {
      accountId: key.accountId,
      keyId: key.id,
      role: columnValue(ROLES, key.role, 'api_keys.role'),
    };
    if (cache.size > 10_000) cache.clear();
    if (seenValid.size > 100_000) seenValid.clear();
    seenValid.add(hash);
    if (endsSeen === endsBefore)
      cache.set(hash, { principal, expires: Math.min(now + cacheMs, key.expiresAt?.getTime() ?? Infinity) });
    return principal;
  };
}

export function requireRole(principal: Principal, roles: readonly Role[]): void {
  if (!roles.includes(principal.role)) {
    throw new ApiError(
      'permission_error',
      'insufficient_role',
      principal.keyId
        ? `This action needs a key with role ${roles.join(' or ')}; this key has role ${principal.role}.`
        : `This action needs the role ${roles.join(' or ')}; you have role ${principal.role} on this account.`,
    );
  }
}
