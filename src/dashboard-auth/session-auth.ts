import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import type { Db } from '../db/prisma';
import type { Principal } from '../http/auth';
import { ApiError } from '../http/errors';
import { findSession, type LiveSession, type SessionSettings } from './session.service';

/** The session cookie: httpOnly, SameSite=Lax, Secure in production (docs/api.md "Dashboard sessions"). */
export const SESSION_COOKIE = 'cc_session';
/** The header a write made with the session cookie carries its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The value of one cookie of the request (no cookie-parser: one cookie is read, nothing is signed). */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0 || part.slice(0, index).trim() !== name) continue;
    const value = part.slice(index + 1).trim();
    return /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : undefined;
  }
  return undefined;
}

export function setSessionCookie(res: Response, token: string, expiresAt: Date): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: process.env.NODE_ENV === 'production',
    path: '/',
    expires: expiresAt,
  });
}

export function clearSessionCookie(res: Response): void {
  res.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    sameSite: 'lax',
    secure: process.env.NODE_ENV === 'production',
    path: '/',
  });
}

export function sessionExpired(): ApiError {
  return new ApiError('authentication_error', 'session_invalid', 'Your session has ended: sign in again.');
}

/**
 * A browser on another site cannot make the request look same-origin: its `Origin` (sent by every
 * current browser on a POST, PUT, PATCH or DELETE) must name this host. Requests without one (curl,
 * old browsers) rely on the CSRF token alone.
 */
export function assertSameOrigin(req: Request): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (!host || host !== req.headers.host) {
    throw new ApiError(
      'permission_error',
      'origin_refused',
      'Requests with a session must come from the dashboard itself.',
    );
  }
}

/**
 * A write with a session cookie must carry the session's synchronizer token (a page on another site
 * can make the browser send the cookie, never read the token) and come from this origin.
 */
export function assertCsrf(req: Request, session: LiveSession): void {
  if (SAFE_METHODS.has(req.method)) return;
  assertSameOrigin(req);
  const sent = req.header(CSRF_HEADER) ?? '';
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(sent);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
    throw new ApiError(
      'permission_error',
      'csrf_token_invalid',
      `Writes made with a session need its csrf_token (GET /dashboard/api/session) in the ${CSRF_HEADER} header.`,
      CSRF_HEADER,
    );
  }
}

/** The live session of the request's cookie, or undefined (no cookie, or one that has ended). */
export async function sessionOf(prisma: Db, req: Request, settings: SessionSettings): Promise<LiveSession | undefined> {
  const token = readCookie(req, SESSION_COOKIE);
  return token ? findSession(prisma, token, settings) : undefined;
}

/**
 * The REST API's principal for a request made with the session cookie: the membership's role, read at
 * this request, on the session's current account, with the user (docs/api.md "Dashboard sessions").
 */
export function createSessionAuthenticator(prisma: Db, settings: SessionSettings) {
  /** With `res`, a session that has ended also loses its cookie: the dashboard's own endpoints say so (docs/decisions.md §21). */
  return async function authenticateSession(req: Request, res?: Response): Promise<Principal> {
    const session = await sessionOf(prisma, req, settings);
    if (!session || !session.role) {
      if (res) clearSessionCookie(res);
      throw sessionExpired();
    }
    assertCsrf(req, session);
    return { accountId: session.accountId, role: session.role, userId: session.user.id, sessionId: session.id };
  };
}
