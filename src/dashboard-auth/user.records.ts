import type { Membership, Prisma, User } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';

/** The user of an email (normalized by the caller), or null. */
export function findUserByEmail(db: Db | Tx, email: string): Promise<User | null> {
  return db.user.findUnique({ where: { email } });
}

export function readUserPasswordHash(db: Db, id: string): Promise<Pick<User, 'passwordHash'> | null> {
  return db.user.findUnique({ where: { id }, select: { passwordHash: true } });
}

/** The name of a user known to exist (the signed-in one). */
export function readExistingUserName(db: Db, id: string): Promise<Pick<User, 'name'>> {
  return db.user.findUniqueOrThrow({ where: { id }, select: { name: true } });
}

export function insertUser(tx: Tx, data: Prisma.UserUncheckedCreateInput): Promise<User> {
  return tx.user.create({ data });
}

export async function setUserDisabledColumn(tx: Tx, id: string, disabled: boolean): Promise<void> {
  await tx.user.update({ where: { id }, data: { disabled } });
}

/** Sets the user's password hash and ends their sessions but `keepSessionId`, in one transaction. */
export async function writePasswordEndingSessions(
  db: Db,
  userId: string,
  passwordHash: string,
  keepSessionId?: string,
): Promise<void> {
  await db.$transaction([
    db.user.update({ where: { id: userId }, data: { passwordHash } }),
    db.session.deleteMany({ where: { userId, ...(keepSessionId ? { id: { not: keepSessionId } } : {}) } }),
  ]);
}

export async function writePasswordHash(tx: Tx, userId: string, passwordHash: string): Promise<void> {
  await tx.user.update({ where: { id: userId }, data: { passwordHash } });
}

export function findMembership(db: Db | Tx, userId: string, accountId: string): Promise<Membership | null> {
  return db.membership.findUnique({ where: { userId_accountId: { userId, accountId } } });
}

/** The account's membership of the user with `email`, or null. */
export function findMembershipByEmail(db: Db, accountId: string, email: string): Promise<Membership | null> {
  return db.membership.findFirst({ where: { accountId, user: { email } } });
}

export async function insertMembership(tx: Tx, data: Prisma.MembershipUncheckedCreateInput): Promise<void> {
  await tx.membership.create({ data });
}

/** The membership, made with `role` unless the user has one of the account already (kept as it is). */
export async function ensureMembership(tx: Tx, data: Prisma.MembershipUncheckedCreateInput): Promise<void> {
  await tx.membership.upsert({
    where: { userId_accountId: { userId: data.userId, accountId: data.accountId } },
    create: data,
    update: {},
  });
}

export async function setMembershipRole(tx: Tx, userId: string, accountId: string, role: string): Promise<void> {
  await tx.membership.update({ where: { userId_accountId: { userId, accountId } }, data: { role } });
}

export async function deleteMembership(tx: Tx, userId: string, accountId: string): Promise<void> {
  await tx.membership.delete({ where: { userId_accountId: { userId, accountId } } });
}

export function countMembersWithRole(tx: Tx, accountId: string, role: string): Promise<number> {
  return tx.membership.count({ where: { accountId, role } });
}

/** The user's memberships with their accounts' names and time zones, oldest first. */
export function readUserMemberships(db: Db | Tx, userId: string) {
  return db.membership.findMany({
    where: { userId },
    include: { account: { select: { name: true, timeZone: true } } },
    orderBy: [{ createdAt: 'asc' }, { accountId: 'asc' }],
  });
}

/** The account's memberships with their users, oldest first. */
export function readAccountMemberships(db: Db, accountId: string) {
  return db.membership.findMany({
    where: { accountId },
    include: { user: { select: { id: true, name: true, email: true, disabled: true } } },
    orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
  });
}
