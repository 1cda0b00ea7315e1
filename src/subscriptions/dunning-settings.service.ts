import { DUNNING_OUTCOMES } from './subscription-machine';
import { columnValue } from '../lib/columns';
import type { Db, Tx } from '../db/prisma';
import { readDunningSettingsRow, writeDunningSettingsRow } from './subscription-settings.records';
import type { DunningSettingsInput, DunningSettingsObject } from './subscription.schemas';

/** decisions.md §7: retries 1, 3 and 5 days after a failed renewal charge, then cancel. */
export const DEFAULT_DUNNING: DunningSettingsObject = {
  object: 'dunning_settings',
  retry_days: [1, 3, 5],
  outcome: 'cancel',
};

export async function getDunningSettings(db: Db | Tx, accountId: string): Promise<DunningSettingsObject> {
  const row = await readDunningSettingsRow(db, accountId);
  if (!row) return DEFAULT_DUNNING;
  return {
    object: 'dunning_settings',
    retry_days: row.retryDays,
    outcome: columnValue(DUNNING_OUTCOMES, row.outcome, 'subscription_dunning_settings.outcome'),
  };
}

/** Applies to renewal charges that fail from now on; dunning already under way keeps the schedule it started with. */
export async function putDunningSettings(
  prisma: Db,
  accountId: string,
  input: DunningSettingsInput,
): Promise<DunningSettingsObject> {
  await writeDunningSettingsRow(prisma, accountId, { retryDays: input.retry_days, outcome: input.outcome });
  return { object: 'dunning_settings', ...input };
}
