import { columnValue } from '../lib/columns';
import crypto from 'node:crypto';
import type { Db } from '../db/prisma';
import { ApiError } from './errors';
import type { AuthFailureLimiter } from './rate-limit';
import { findApiKeyByHash, stampApiKeyUsed } from './auth.records';

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

export function hashApiKey(key: string): string {
  return crypto.createHash('sha256').update(key).digest('hex');
}

/** How long a looked-up key is trusted without asking the database again (docs/api.md "API keys"). */
export const AUTH_CACHE_MS = 30_000;

/**
 * Resolves `cc-api-key` to its account. Keys are high-entropy random strings, so a SHA-256 digest is
 * a safe lookup key. Lookups are cached for `cacheMs` (never past the key's expiry): an authenticated
 * request then costs no extra query, and a key revoked by another process answers 401 within it.
 * Each lookup also stamps `last_used_at`, so it is exact to within the cache lifetime.
 */
export function createAuthenticator(prisma: Db, cacheMs = AUTH_CACHE_MS, failures?: AuthFailureLimiter) {
  const cache = new Map<string, { principal: Principal; expires: number }>();
  /** Digests of keys found valid before: their lookups are never held up by the failed-authentication limit. */
  const seenValid = new Set<string>();
  /**
   * Each raw key's digest, kept so that a key's every request does not hash it again (a SHA-256 was some 1.5% of a
   * read's CPU: docs/performance.md, "Reads, third pass"). Only the digest is memoized: whether the key is valid is
   * still the cache's answer above, which expires, so a revoked key is refused as before.
   */
  const digests = new Map<string, string>();
  const digestOf = (rawKey: string): string => {
    let digest = digests.get(rawKey);
    if (digest === undefined) {
      if (digests.size >= 10_000) digests.clear();
      digest = hashApiKey(rawKey);
      digests.set(rawKey, digest);
    }
    return digest;
  };
  /** `clientAddress`: where the request came from, for the failed-authentication limit. */
  return async function authenticate(rawKey: string | undefined, clientAddress = 'unknown'): Promise<Principal> {
    if (!rawKey) {
      throw new ApiError(
        'authentication_error',
        'api_key_missing',
        'Missing API key: send it in the cc-api-key header.',
      );
    }
    const hash = digestOf(rawKey);
    const now = Date.now();
    const cached = cache.get(hash);
    if (cached && cached.expires > now) return cached.principal;
    cache.delete(hash);
    if (!seenValid.has(hash)) await failures?.assertAllowed(clientAddress);
    const key = await findApiKeyByHash(prisma, hash);
    if (!key || (key.expiresAt && key.expiresAt.getTime() <= now)) {
      await failures?.recordFailure(clientAddress);
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
