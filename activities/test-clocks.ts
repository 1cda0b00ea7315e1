import type { Db } from '../src/db/prisma';
import { finishTestClockAdvance, liveClockWorkflows } from '../src/test-clocks';

/** The test clock workflow's activities (src/test-clocks/test-clock.service.ts). */
export function createTestClockActivities({ prisma }: { prisma: Db }) {
  return {
    /** Ids of the workflows still running on the clock: its live subscriptions and payment plans. */
    async listTestClockWorkflows(input: { clockId: string }): Promise<string[]> {
      return liveClockWorkflows(prisma, input.clockId);
    },

    /** Marks the clock ready once its workflows caught up (idempotent: only the advance to `time` is finished). */
    async finishTestClockAdvance(input: { clockId: string; time: number }): Promise<void> {
      await finishTestClockAdvance(prisma, input.clockId, input.time);
    },
  };
}

export type TestClockActivities = ReturnType<typeof createTestClockActivities>;
