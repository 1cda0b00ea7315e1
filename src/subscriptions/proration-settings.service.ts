import type { Db } from '../db/prisma';
import { readProrationBehavior, writeProrationBehavior } from '../accounts';
import { columnValue } from '../lib/columns';
import { PRORATION_BEHAVIORS, type ProrationBehavior } from './proration';
import type { ProrationSettingsObject } from './subscription.schemas';

/**
 * The account's proration_behavior for changes that name none (docs/decisions.md §25): new accounts
 * `create_prorations`, accounts that existed before proration `none` until they change it.
 */
export async function accountProrationBehavior(prisma: Db, accountId: string): Promise<ProrationBehavior> {
  const stored = await readProrationBehavior(prisma, accountId);
  return columnValue(PRORATION_BEHAVIORS, stored ?? 'none', 'accounts.proration_behavior');
}

export async function getProrationSettings(prisma: Db, accountId: string): Promise<ProrationSettingsObject> {
  return { object: 'proration_settings', proration_behavior: await accountProrationBehavior(prisma, accountId) };
}

/** Applies to changes made from now on; lines already pending stay as they were computed. */
export async function putProrationSettings(
  prisma: Db,
  accountId: string,
  input: { proration_behavior: ProrationBehavior },
): Promise<ProrationSettingsObject> {
  await writeProrationBehavior(prisma, accountId, input.proration_behavior);
  return { object: 'proration_settings', proration_behavior: input.proration_behavior };
}
