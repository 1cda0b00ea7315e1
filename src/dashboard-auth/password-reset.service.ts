import crypto from 'node:crypto';
import type { Db } from '../db/prisma';
import { ApiError } from '../http/errors';
import { newId } from '../lib/ids';
import { hashPassword } from './passwords';
import { tokenHashOf } from './team.service';
import { membershipsOf, normalizeEmail } from './user.service';
import { findUserByEmail, writePasswordHash } from './user.records';
import { deleteUserSessions } from './session.records';
import {
  claimPasswordReset,
  insertPasswordReset,
  readPasswordResetByTokenHash,
  updatePasswordReset,
  useUpUserPasswordResets,
} from './password-reset.records';

/** How long a reset link works (docs/decisions.md §32): an hour, once. */
export const PASSWORD_RESET_TTL_MS = 3_600_000;

/**
 * A reset link for the user of `email`, when there is one who may sign in (not disabled, a member of an
 * account): the token (32 random bytes, base64url) to put in the link, the row keeping its SHA-256
 * only. Undefined otherwise: the request's answer is the same either way (no way to learn who has a user).
 */
export async function createPasswordReset(
  prisma: Db,
  email: string,
  now = new Date(),
): Promise<
  { id: string; token: string; user: { id: string; name: string; email: string }; expiresAt: Date } | undefined
> {
  const user = await findUserByEmail(prisma, normalizeEmail(email));
  if (!user || user.disabled || (await membershipsOf(prisma, user.id)).length === 0) return undefined;
  const token = crypto.randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_TTL_MS);
  const row = await insertPasswordReset(prisma, {
    id: newId('passwordReset'),
    userId: user.id,
    tokenHash: tokenHashOf(token),
    createdAt: now,
    expiresAt,
  });
  return { id: row.id, token, user: { id: user.id, name: user.name, email: user.email }, expiresAt };
}

/** What became of the reset's email: taken by the SMTP server at `sentAt`, or not, and why. */
export async function recordResetEmail(
  prisma: Db,
  id: string,
  outcome: { sentAt: Date } | { error: string },
): Promise<void> {
  await updatePasswordReset(
    prisma,
    id,
    'sentAt' in outcome ? { emailedAt: outcome.sentAt } : { emailError: outcome.error },
  );
}

const usedLink = () =>
  new ApiError('conflict', 'reset_used', 'This reset link has been used already: ask for a new one.', 'token', 410);

const unknownLink = () =>
  new ApiError('not_found', 'reset_unknown', 'This reset link is not valid: ask for a new one.', 'token');

/** The reset of a link, when it can still be used; the refusal the page shows otherwise (404, or 410 used or expired). */
async function usableReset(prisma: Db, token: string, now: Date) {
  const row = await readPasswordResetByTokenHash(prisma, tokenHashOf(token));
  if (!row || row.user.disabled) throw unknownLink();
  if (row.usedAt) throw usedLink();
  if (row.expiresAt <= now)
    throw new ApiError('conflict', 'reset_expired', 'This reset link has expired: ask for a new one.', 'token', 410);
  return row;
}

/** GET: whose password the link resets and until when. */
export async function previewPasswordReset(prisma: Db, token: string, now = new Date()) {
  const row = await usableReset(prisma, token, now);
  return {
    object: 'password_reset' as const,
    email: row.user.email,
    expires_at: Math.floor(row.expiresAt.getTime() / 1000),
  };
}

/**
 * Sets the new password with the link, once: the link is marked used only by the call that finds it
 * unused and unexpired (a second, concurrent use changes nothing), every other reset link of the user
 * stops working, and every session of the user ends (whoever had the old password is signed out).
 */
export async function resetPassword(prisma: Db, token: string, password: string, now = new Date()): Promise<void> {
  const row = await usableReset(prisma, token, now);
  const passwordHash = await hashPassword(password);
  await prisma.$transaction(async (tx) => {
    if (!(await claimPasswordReset(tx, row.id, now))) throw usedLink();
    await useUpUserPasswordResets(tx, row.userId, now);
    await writePasswordHash(tx, row.userId, passwordHash);
    await deleteUserSessions(tx, row.userId);
  });
}
