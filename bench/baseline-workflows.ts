// The Temporal baselines the bench divides the service's workflow figures by, bundled by bench/baseline-worker.ts.
import { defineQuery, proxyActivities, setHandler, sleep } from '@temporalio/workflow';

const { writeStormRow } = proxyActivities<{ writeStormRow(id: string): Promise<void> }>({
  startToCloseTimeout: '1 minute',
});

/** The renewal storm's baseline (bench/storm.ts): the least a renewal can be, a wake on a timer and one activity writing one row. */
export async function stormBaselineWorkflow(atMs: number, id: string): Promise<void> {
  if (atMs > Date.now()) await sleep(atMs - Date.now());
  await writeStormRow(id);
}

/**
 * The creation baseline (bench/subscriptions.ts): the least a workflow readable from its first second can
 * be, as a subscription's is (docs/decisions.md §14): its first task registers a `state` query and waits on a
 * timer until its next step.
 */
export async function creationBaselineWorkflow(nextStepAtMs: number): Promise<void> {
  setHandler(defineQuery<{ nextStepAtMs: number }>('state'), () => ({ nextStepAtMs }));
  await sleep(Math.max(1, nextStepAtMs - Date.now()));
}
