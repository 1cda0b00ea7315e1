import { z } from 'zod';
import { paginationQuery } from '../http/pagination';
import { resourceId, unixSeconds } from '../http/validation';

export const TEST_CLOCK_STATUSES = ['ready', 'advancing'] as const;
export type TestClockStatus = (typeof TEST_CLOCK_STATUSES)[number];

export const createTestClockBody = z
  .strictObject({
    frozen_time: unixSeconds.describe('Unix seconds: the time the clock starts at (past or future)'),
    name: z.string().trim().min(1, 'must not be empty').max(300, 'must be at most 300 characters').optional(),
  })
  .meta({ id: 'TestClockCreate' });

export const advanceTestClockBody = z
  .strictObject({
    frozen_time: unixSeconds.describe(
      "Unix seconds, after the current frozen_time and at most two of the longest billing interval among the clock's subscriptions and payment plans ahead (two years when it has none)",
    ),
  })
  .meta({ id: 'TestClockAdvance' });

export const testClockIdParams = z.strictObject({ id: resourceId });
export const listTestClocksQuery = z.strictObject(paginationQuery(100));

export const testClockSchema = z
  .object({
    id: z.string(),
    object: z.literal('test_clock'),
    frozen_time: z.number().int().describe('Unix seconds: the time of the clock'),
    status: z
      .enum(TEST_CLOCK_STATUSES)
      .describe('`advancing` until every subscription and payment plan on the clock has caught up with frozen_time'),
    name: z.string().nullable(),
    created: z.number().int(),
  })
  .meta({ id: 'TestClock' });

export const deletedTestClockSchema = z.object({
  id: z.string(),
  object: z.literal('test_clock'),
  deleted: z.literal(true),
});

export type CreateTestClockInput = z.output<typeof createTestClockBody>;
export type TestClockObject = z.output<typeof testClockSchema>;
