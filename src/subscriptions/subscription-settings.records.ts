import type { SubscriptionDunningSettings } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';

/** The account's dunning settings (docs/decisions.md §7), or null while it keeps the defaults. */
export function readDunningSettingsRow(db: Db | Tx, accountId: string): Promise<SubscriptionDunningSettings | null> {
  return db.subscriptionDunningSettings.findUnique({ where: { accountId } });
}

export async function writeDunningSettingsRow(
  db: Db,
  accountId: string,
  settings: Pick<SubscriptionDunningSettings, 'retryDays' | 'outcome'>,
): Promise<void> {
  await db.subscriptionDunningSettings.upsert({
    where: { accountId },
    create: { accountId, ...settings },
    update: settings,
  });
}
