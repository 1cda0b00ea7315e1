import type { Account } from '../generated/prisma/client';
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
