import type { Prisma } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';

export async function insertSession(db: Db, data: Prisma.SessionUncheckedCreateInput): Promise<void> {
  await db.session.create({ data });
}

/** The session with its user and the user's memberships (the role is read at every request), or null. */
export function readSessionWithUser(db: Db, id: string) {
  return db.session.findUnique({
    where: { id },
    include: {
      user: {
        select: {
          id: true,
          email: true,
          name: true,
          disabled: true,
          memberships: { select: { accountId: true, role: true } },
        },
      },
    },
  });
}

/** Deletes the session if it is still there (a concurrent sign-out may have deleted it first). */
export async function deleteSessionRow(db: Db, id: string): Promise<void> {
  await db.session.deleteMany({ where: { id } });
}

export async function touchSession(db: Db, id: string, lastSeenAt: Date): Promise<void> {
  await db.session.updateMany({ where: { id }, data: { lastSeenAt } });
}

export async function moveSessionToAccount(db: Db, id: string, accountId: string): Promise<void> {
  await db.session.update({ where: { id }, data: { accountId } });
}

/** Deletes the sessions past their absolute expiry at `now`; answers how many. */
export async function deleteSessionsExpiredAt(db: Db, now: Date): Promise<number> {
  return (await db.session.deleteMany({ where: { expiresAt: { lte: now } } })).count;
}

/** Ends the user's sessions (on `accountId` only, when given); answers how many. */
export async function deleteUserSessions(db: Db | Tx, userId: string, accountId?: string): Promise<number> {
  return (await db.session.deleteMany({ where: { userId, ...(accountId === undefined ? {} : { accountId }) } })).count;
}
