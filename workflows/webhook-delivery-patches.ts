/**
 * Every change of the webhook delivery workflow's behaviour that deliveries already running must not
 * see (docs/decisions.md §1): each is asked with `patched(id)` where the old and the new code part, so
 * a recorded history replays its old commands (test/subscriptions/subscription-replay.test.ts, webhook-*.json) and a
 * new run takes the new path. A patch goes when its condition holds: then `patched(id)` becomes
 * `deprecatePatch(id)` for one release, and the old branch is deleted.
 */
export const WEBHOOK_DELIVERY_PATCHES = {
  /**
   * Every attempt is a local activity: it runs inside the workflow task that reaches it (the first one
   * comes with the eager start), so a delivery that succeeds at once costs one start and one workflow
   * task instead of a start, two workflow tasks and an activity task. Deliveries started before it
   * replay with the activities they scheduled. Remove when no delivery started before it is open (its
   * schedule ends within the hour, decisions.md §10).
   */
  localAttempts: 'webhook-local-attempts',
  /**
   * An attempt answered from its record (made by an earlier execution: the relay's slow attempt 1
   * found after the wait for it, or an attempt recorded before a crash) carries when it ended, and
   * the next attempt comes its delay after that end, not a whole delay after the answer (the contract's
   * retry delays count from the failed attempt, decisions.md §10). Runs before it waited the whole
   * delay. Remove when no delivery started before it is open (its schedule ends within the hour).
   */
  retryFromAttemptEnd: 'webhook-retry-from-attempt-end',
} as const;
