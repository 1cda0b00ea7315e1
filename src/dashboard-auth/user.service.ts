import type { Db, Tx } from '../db/prisma';
import { ROLES, type Role } from '../http/auth';
import { columnValue } from '../lib/columns';
import { newId } from '../lib/ids';
import { accountExists, recordOperatorAction, type OperatorActor } from '../accounts';
import { hashPassword, verifyPassword } from './passwords';
import { deleteUserSessions } from './session.records';
import {
  findMembership,
  findUserByEmail,
  insertMembership,
  insertUser,
  readUserMemberships,
  readUserPasswordHash,
  setUserDisabledColumn,
  writePasswordEndingSessions,
} from './user.records';

/** Emails are compared trimmed and lower-cased: `Ada@Example.com` and `ada@example.com` are one user. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface MembershipView {
  id: string;
  name: string;
  role: Role;
  /** The account's IANA time zone: the dashboard shows every date and time in it. */
  time_zone: string;
}

export type CreateUserResult =
  | { outcome: 'created' | 'member_added'; user_id: string; email: string; account_id: string; role: Role }
  | { outcome: 'unknown_account' }
  | { outcome: 'already_member'; user_id: string }
  /** The email belongs to a user already: a password given for them would silently not apply. */
  | { outcome: 'password_for_existing_user'; user_id: string }
  | { outcome: 'password_required' };

/**
 * Creates a user with a membership of `accountId`, or adds the membership to the user who has the
 * email already (whose password stays theirs: `password` must then be absent). With `actor`, the
 * change is recorded in operator_actions, in the same transaction.
 */
export async function createUser(
  prisma: Db,
  input: { accountId: string; email: string; name?: string; password?: string; role: Role },
  actor?: OperatorActor,
): Promise<CreateUserResult> {
  const email = normalizeEmail(input.email);
  // scrypt runs before the transaction so that it holds no connection for the hash's tens of milliseconds.
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password);
  return prisma.$transaction(async (tx) => {
    if (!(await accountExists(tx, input.accountId))) return { outcome: 'unknown_account' };
    const account = { id: input.accountId };
    const existing = await findUserByEmail(tx, email);
    if (existing && passwordHash !== undefined) return { outcome: 'password_for_existing_user', user_id: existing.id };
    if (existing) {
      const member = await findMembership(tx, existing.id, account.id);
      if (member) return { outcome: 'already_member', user_id: existing.id };
    }
    if (!existing && passwordHash === undefined) return { outcome: 'password_required' };
    const user =
      existing ??
      (await insertUser(tx, {
        id: newId('user'),
        email,
        name: input.name?.trim() || email,
        passwordHash: passwordHash!,
      }));
    await insertMembership(tx, { userId: user.id, accountId: account.id, role: input.role });
    if (actor)
      await recordOperatorAction(tx, actor, {
        accountId: account.id,
        target: user.id,
        detail: { ...(existing ? {} : { created: user.id }), email, role: input.role },
      });
    return {
      outcome: existing ? 'member_added' : 'created',
      user_id: user.id,
      email,
      account_id: account.id,
      role: input.role,
    };
  });
}

/** The accounts the user belongs to, oldest membership first. */
export async function membershipsOf(prisma: Db | Tx, userId: string): Promise<MembershipView[]> {
  const rows = await readUserMemberships(prisma, userId);
  return rows.map((row) => ({
    id: row.accountId,
    name: row.account.name,
    role: columnValue(ROLES, row.role, 'memberships.role'),
    time_zone: row.account.timeZone,
  }));
}

/** Checks a user's password; false for an unknown or disabled user, after as long as a real check takes. */
export async function checkCredentials(
  prisma: Db,
  email: string,
  password: string,
): Promise<{ id: string; email: string; name: string } | undefined> {
  const user = await findUserByEmail(prisma, normalizeEmail(email));
  const valid = await verifyPassword(password, user?.passwordHash);
  return valid && user && !user.disabled ? { id: user.id, email: user.email, name: user.name } : undefined;
}

/** Whether `password` is the user's (a signed-in user's, changing it), checked as the sign-in does. */
export async function passwordMatches(prisma: Db, userId: string, password: string): Promise<boolean> {
  return verifyPassword(password, (await readUserPasswordHash(prisma, userId))?.passwordHash);
}

/** Sets a new password and ends every other session of the user (a password change is often a reaction to a leak). */
export async function setPassword(prisma: Db, userId: string, password: string, keepSessionId?: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  await writePasswordEndingSessions(prisma, userId, passwordHash, keepSessionId);
}

export type SetUserDisabledResult =
  | { outcome: 'unknown_user' }
  | {
      outcome: 'disabled' | 'enabled' | 'unchanged';
      user_id: string;
      email: string;
      disabled: boolean;
      sessions_ended: number;
    };

/**
 * Disables a user (they cannot sign in; every session of theirs is deleted in the same transaction, so the next
 * request of an open dashboard answers 401) or enables them again. With `actor`, the change is recorded in
 * operator_actions. Their memberships stay: enabled again, they find their accounts and roles as they were.
 */
export async function setUserDisabled(
  prisma: Db,
  input: { email: string; disabled: boolean },
  actor?: OperatorActor,
): Promise<SetUserDisabledResult> {
  const email = normalizeEmail(input.email);
  return prisma.$transaction(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (!user) return { outcome: 'unknown_user' };
    const ended = input.disabled ? await deleteUserSessions(tx, user.id) : 0;
    if (user.disabled === input.disabled)
      return { outcome: 'unchanged', user_id: user.id, email, disabled: user.disabled, sessions_ended: ended };
    await setUserDisabledColumn(tx, user.id, input.disabled);
    if (actor) await recordOperatorAction(tx, actor, { target: user.id, detail: { email, disabled: input.disabled } });
    return {
      outcome: input.disabled ? 'disabled' : 'enabled',
      user_id: user.id,
      email,
      disabled: input.disabled,
      sessions_ended: ended,
    };
  });
}
