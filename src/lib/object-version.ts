import { z } from 'zod';

/**
 * `updated_ms` on every object that has events: Unix milliseconds of its last change, set by the
 * database trigger `bump_updated_ms` (migration object_updated_ms) to now, or one more than before
 * when now is not larger. Webhook deliveries of one object may arrive in any order; a receiver keeps
 * the `data` with the highest `updated_ms` (docs/api.md, "Ordering events"). `updated`, where the spec has
 * it, stays Unix seconds as the spec says.
 */
export const updatedMsField = z
  .number()
  .int()
  .describe(
    "Unix milliseconds of the object's last change; strictly increases with every change, so it orders webhook events of one object",
  );

export function updatedMsOf(row: { updatedMs: bigint }): number {
  return Number(row.updatedMs);
}
