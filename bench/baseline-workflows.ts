// The renewal storm's baseline (bench/storm.ts): the least a renewal can be on Temporal, a workflow that
// wakes on a timer and runs one activity writing one row. Bundled by bench/storm-baseline-worker.ts.
import { proxyActivities, sleep } from '@temporalio/workflow';

const { writeStormRow } = proxyActivities<{ writeStormRow(id: string): Promise<void> }>({
  startToCloseTimeout: '1 minute',
});

export async function stormBaselineWorkflow(atMs: number, id: string): Promise<void> {
  if (atMs > Date.now()) await sleep(atMs - Date.now());
  await writeStormRow(id);
}
