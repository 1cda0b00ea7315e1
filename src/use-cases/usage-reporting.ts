import type { Client } from '@temporalio/client';
import type { Db } from '../db/prisma';
import { noticeUsageReported } from '../subscriptions';
import { recordUsageEvents } from '../usage';
import type { CreateUsageEventsInput, UsageEventsAccepted } from '../usage';

/**
 * POST /usage-events: the batch written (docs/decisions.md §42), then the workflows of the customers'
 * subscriptions with a billing threshold told, so each checks it under its lock (docs/decisions.md §43, "Billing
 * thresholds"). The subscriptions come with the batch's customer statement: a batch whose customers have no
 * threshold costs nothing more.
 */
export async function reportUsage(
  { prisma, temporal }: { prisma: Db; temporal: Client },
  accountId: string,
  input: CreateUsageEventsInput,
): Promise<UsageEventsAccepted> {
  const { accepted, thresholdSubscriptionIds } = await recordUsageEvents(prisma, accountId, input);
  await noticeUsageReported(temporal, thresholdSubscriptionIds);
  return accepted;
}
