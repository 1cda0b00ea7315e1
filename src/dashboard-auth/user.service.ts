import type { Db, Tx } from '../db/prisma';
import { ROLES, type Role } from '../http/auth';
import { columnValue } from '../lib/columns';
import { newId } from '../lib/ids';
import { recordOperatorAction, type OperatorActor } from '../accounts';
import { hashPassword, verifyPassword } from './passwords';

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
    const account = await tx.account.findUnique({ where: { id: input.accountId }, select: { id: true } });
    if (!account) return { outcome: 'unknown_account' };
    const existing = await tx.user.findUnique({ where: { email } });
    if (existing && passwordHash !== undefined) return { outcome: 'password_for_existing_user', user_id: existing.id };
    if (existing) {
      const member = await tx.membership.findUnique({
        where: { userId_accountId: { userId: existing.id, accountId: account.id } },
      });
      if (member) return { outcome: 'already_member', user_id: existing.id };
    }
    if (!existing && passwordHash === undefined) return { outcome: 'password_required' };
    const user =
      existing ??
      (await tx.user.create({
        data: { id: newId('user'), email, name: input.name?.trim() || email, passwordHash: passwordHash! },
      }));
    await tx.membership.create({ data: { userId: user.id, accountId: account.id, role: input.role } });
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
  const rows = await prisma.membership.findMany({
    where: { userId },
    include: { account: { select: { name: true, timeZone: true } } },
    orderBy: [{ createdAt: 'asc' }, { accountId: 'asc' }],
  });
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
  const user = await prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
  const valid = await verifyPassword(password, user?.passwordHash);
  return valid && user && !user.disabled ? { id: user.id, email: user.email, name: user.name } : undefined;
}

/** Sets a new password and ends every other session of the user (a password change is often a reaction to a leak). */
export async function setPassword(prisma: Db, userId: string, password: string, keepSessionId?: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  await prisma.$transaction([
    prisma.user.update({ where: { id: userId }, data: { passwordHash } }),
    prisma.session.deleteMany({ where: { userId, ...(keepSessionId ? { id: { not: keepSessionId } } : {}) } }),
  ]);
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
    const user = await tx.user.findUnique({ where: { email } });
    if (!user) return { outcome: 'unknown_user' };
    const ended = input.disabled ? (await tx.session.deleteMany({ where: { userId: user.id } })).count : 0;
    if (user.disabled === input.disabled)
      return { outcome: 'unchanged', user_id: user.id, email, disabled: user.disabled, sessions_ended: ended };
    await tx.user.update({ where: { id: user.id }, data: { disabled: input.disabled } });
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
