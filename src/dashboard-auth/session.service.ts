import crypto from 'node:crypto';
import type { Db } from '../db/prisma';
import { config } from '../config';
import { ROLES, type Role } from '../http/auth';
import { columnValue } from '../lib/columns';
import { findMembership } from './user.records';
import {
  deleteSessionRow,
  deleteSessionsExpiredAt,
  insertSession,
  moveSessionToAccount,
  readSessionWithUser,
  touchSession,
} from './session.records';

export interface SessionSettings {
  /** A session not used for this long has ended. */
  idleMs: number;
  /** A session this old has ended, however active. */
  absoluteMs: number;
}

export function sessionSettingsFromConfig(): SessionSettings {
  return { idleMs: config.sessionIdleMinutes * 60_000, absoluteMs: config.sessionMaxHours * 3_600_000 };
}

/** How stale `last_seen_at` may get before a request stamps it again: one write a minute per session, not one per request. */
const TOUCH_INTERVAL_MS = 60_000;

/** The session's row id: the SHA-256 of the cookie's token, so the table alone signs nobody in. */
export function sessionIdOf(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export interface NewSession {
  token: string;
  id: string;
  csrfToken: string;
  expiresAt: Date;
}

export async function createSession(
  prisma: Db,
  userId: string,
  accountId: string,
  settings: SessionSettings,
  now = new Date(),
): Promise<NewSession> {
  const token = crypto.randomBytes(32).toString('base64url');
  const id = sessionIdOf(token);
  const csrfToken = crypto.randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + settings.absoluteMs);
  await insertSession(prisma, { id, userId, accountId, csrfToken, createdAt: now, lastSeenAt: now, expiresAt });
  return { token, id, csrfToken, expiresAt };
}

export interface LiveSession {
  id: string;
  csrfToken: string;
  expiresAt: Date;
  /** When the session ends if it is not used before. */
  idleExpiresAt: Date;
  user: { id: string; email: string; name: string };
  accountId: string;
  /** The role of the user's membership of the session's account, read now; null when it is gone. */
  role: Role | null;
}

/**
 * The session a cookie's token names, with the user and the role read now (not when the session
 * began): disabling a user or changing a role takes effect at the next request. An ended session
 * (idle, past its absolute expiry, or of a disabled user) is deleted and answers undefined.
 */
export async function findSession(
  prisma: Db,
  token: string,
  settings: SessionSettings,
  now = new Date(),
): Promise<LiveSession | undefined> {
  const id = sessionIdOf(token);
  const row = await readSessionWithUser(prisma, id);
  if (!row) return undefined;
  const idleExpiresAt = new Date(row.lastSeenAt.getTime() + settings.idleMs);
  if (row.user.disabled || row.expiresAt <= now || idleExpiresAt <= now) {
    await deleteSessionRow(prisma, id);
    return undefined;
  }
  let lastSeenAt = row.lastSeenAt;
  if (now.getTime() - lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
    lastSeenAt = now;
    await touchSession(prisma, id, lastSeenAt);
  }
  const membership = row.user.memberships.find((member) => member.accountId === row.accountId);
  return {
    id,
    csrfToken: row.csrfToken,
    expiresAt: row.expiresAt,
    idleExpiresAt: new Date(Math.min(lastSeenAt.getTime() + settings.idleMs, row.expiresAt.getTime())),
    user: { id: row.user.id, email: row.user.email, name: row.user.name },
    accountId: row.accountId,
    role: membership ? columnValue(ROLES, membership.role, 'memberships.role') : null,
  };
}

export async function deleteSession(prisma: Db, id: string): Promise<void> {
  await deleteSessionRow(prisma, id);
}

/** Moves the session to another account of the user's; false when the user is no member of it. */
export async function switchAccount(prisma: Db, session: LiveSession, accountId: string): Promise<boolean> {
  if (!(await findMembership(prisma, session.user.id, accountId))) return false;
  await moveSessionToAccount(prisma, session.id, accountId);
  return true;
}

/** Deletes sessions that have ended by their absolute expiry (idle ones are deleted when next presented). */
export async function deleteEndedSessions(prisma: Db, now = new Date()): Promise<number> {
  return deleteSessionsExpiredAt(prisma, now);
}
