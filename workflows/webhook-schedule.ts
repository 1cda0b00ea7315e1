/** Spec delivery rule 5: five retries after the first delivery, about 43 minutes in all. */
export const WEBHOOK_RETRY_DELAYS_MS = [15_000, 45_000, 120_000, 600_000, 1_800_000] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;
/** Each delay is multiplied by a factor drawn uniformly in [1 - JITTER, 1 + JITTER]. */
export const WEBHOOK_RETRY_JITTER = 0.2;

/**
 * The wait before attempt 2, 3, ... 6: each base delay times a factor drawn from `random` (uniform in
 * [0, 1)). Pure: the relay draws with Math.random, the workflow (deliveries started before the relay
 * made attempt 1) with its seeded workflowRandom.
 */
export function drawRetryDelays(random: () => number): number[] {
  return WEBHOOK_RETRY_DELAYS_MS.map((base) =>
    Math.round(base * (1 - WEBHOOK_RETRY_JITTER + 2 * WEBHOOK_RETRY_JITTER * random())),
  );
}
