import type { PasswordReset, Prisma } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';

export function insertPasswordReset(db: Db, data: Prisma.PasswordResetUncheckedCreateInput): Promise<PasswordReset> {
  return db.passwordReset.create({ data });
}

export async function updatePasswordReset(
  db: Db,
  id: string,
  data: Pick<Prisma.PasswordResetUncheckedUpdateInput, 'emailedAt' | 'emailError'>,
): Promise<void> {
  await db.passwordReset.update({ where: { id }, data });
}

/** The reset of a link's token hash with its user's email and state, or null. */
export function readPasswordResetByTokenHash(db: Db, tokenHash: string) {
  return db.passwordReset.findUnique({
    where: { tokenHash },
    include: { user: { select: { email: true, disabled: true } } },
  });
}

/** Marks the reset used if it is still unused and unexpired at `now`: true for the one call that does. */
export async function claimPasswordReset(tx: Tx, id: string, now: Date): Promise<boolean> {
  const claimed = await tx.passwordReset.updateMany({
    where: { id, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  return claimed.count === 1;
}

/** Marks every unused reset of the user used at `now`. */
export async function useUpUserPasswordResets(tx: Tx, userId: string, now: Date): Promise<void> {
  await tx.passwordReset.updateMany({ where: { userId, usedAt: null }, data: { usedAt: now } });
}
