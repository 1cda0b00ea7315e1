/**
 * Every change of the payment-plan workflow's behaviour that plans already running must not see
 * (docs/decisions.md §1): each is asked with `patched(id)` where the old and the new code part, so a
 * recorded history replays its old commands (test/subscriptions/subscription-replay.test.ts, payment-plan-*.json)
 * and a new run takes the new path. A patch goes when its condition holds: then `patched(id)` becomes
 * `deprecatePatch(id)` for one release, and the old branch is deleted.
 */
export const PAYMENT_PLAN_PATCHES = {
  /**
   * A pending plan whose deposit charge failed under older code (it stayed pending) is marked past_due
   * once, so it follows the past_due and default rules (decisions.md §9). Remove when no plan left
   * pending by a failed deposit before it is open.
   */
  settleMissedDeposit: 'settle-missed-deposit',
  /**
   * A request the workflow refuses (wrong state, plan closed) fails its update, with the refusal's
   * record as the failure's detail, so the Web UI and the CLI show it failed rather than "Update
   * successful" (docs/operations.md). Before it, the record answered `applied: false` as a result.
   * Remove when no plan workflow started before it is open.
   */
  refusalsFail: 'refused-requests-fail',
} as const;
