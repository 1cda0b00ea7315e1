/**
 * The one place workflow code reads the clock. Inside a workflow the Temporal SDK replaces `Date`
 * with workflow time: the time of the current workflow task, recorded in history and identical on
 * replay (and skipped ahead by the time-skipping test server). Everywhere else in workflows/ the
 * linter forbids Date.now(), so every read of time is this deterministic one.
 */
export function workflowNow(): number {
  // eslint-disable-next-line no-restricted-properties -- deterministic inside the workflow sandbox (see above)
  return Date.now();
}
