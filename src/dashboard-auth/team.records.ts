import type { Account, Invitation, Prisma } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { queryRows, type AnyTx, type Statement } from '../db/sql';

const LOCK_ACCOUNT: Statement = {
  name: 'account_lock_team',
  text: 'SELECT id FROM accounts WHERE id = $1 FOR UPDATE',
};

/**
 * Locks the account's row until the caller's transaction ends: changes to its memberships take this
 * lock first, so two superadmins demoting each other at once cannot leave the account with none.
 */
export async function lockAccountForTeam(tx: AnyTx, accountId: string): Promise<Pick<Account, 'id'> | undefined> {
  const [row] = await queryRows<Pick<Account, 'id'>>(tx, LOCK_ACCOUNT, [accountId]);
  return row;
}

export async function setInvitationEmailed(
  db: Db,
  id: string,
  data: Pick<Prisma.InvitationUncheckedUpdateInput, 'emailedAt' | 'emailError'>,
): Promise<void> {
  await db.invitation.update({ where: { id }, data });
}

/** The account's invitations pending at `now` (neither accepted, revoked nor expired), newest first. */
export function readPendingInvitations(db: Db, accountId: string, now: Date): Promise<Invitation[]> {
  return db.invitation.findMany({
    where: { accountId, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

export function insertInvitation(db: Db, data: Prisma.InvitationUncheckedCreateInput): Promise<Invitation> {
  return db.invitation.create({ data });
}

/** Revokes the invitation if it is pending at `now`: true when this call did. */
export async function revokePendingInvitation(db: Db, accountId: string, id: string, now: Date): Promise<boolean> {
  const revoked = await db.invitation.updateMany({
    where: { id, accountId, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
    data: { revokedAt: now },
  });
  return revoked.count === 1;
}

/** The account's invitation, or null (another account's too). */
export function findInvitation(db: Db, accountId: string, id: string): Promise<Invitation | null> {
  return db.invitation.findFirst({ where: { id, accountId } });
}

export function findInvitationByTokenHash(db: Db | Tx, tokenHash: string): Promise<Invitation | null> {
  return db.invitation.findUnique({ where: { tokenHash } });
}

/** The invitation of a link's token hash with its account's name and time zone, or null. */
export function readInvitationWithAccount(db: Db, tokenHash: string) {
  return db.invitation.findUnique({
    where: { tokenHash },
    include: { account: { select: { name: true, timeZone: true } } },
  });
}

/** Marks the invitation accepted if it is pending at `now`: true for the one call that does. */
export async function claimInvitation(tx: Tx, id: string, now: Date): Promise<boolean> {
  const claimed = await tx.invitation.updateMany({
    where: { id, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
    data: { acceptedAt: now },
  });
  return claimed.count === 1;
}
