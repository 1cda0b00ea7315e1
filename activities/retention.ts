import type { Db } from '../src/db/prisma';
import { sweepRetentionBatch } from '../src/retention';
import type { RetentionBatchInput, RetentionBatchResult } from '../src/retention';

/** The retention sweep's activity (docs/decisions.md §24): one batch, one transaction. */
export function createRetentionActivities({ prisma }: { prisma: Db }) {
  return {
    async sweepRetentionBatch(input: RetentionBatchInput): Promise<RetentionBatchResult> {
      return sweepRetentionBatch(prisma, input);
    },
  };
}

export type RetentionActivities = ReturnType<typeof createRetentionActivities>;
