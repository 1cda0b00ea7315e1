import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { TSX_NODE_ARGS } from '../../src/runtime/processes';
import type { SubscriptionWorld } from './subscriptions';

export interface CrashingWorker {
  /** Resolves when the worker says it reached its step. */
  reached: Promise<void>;
  /** SIGKILL: the process dies where it is, as a lost machine does. */
  kill(): Promise<void>;
}

/**
 * A worker process of its own (test/support/crashing-worker.ts) on the world's task queue that stops at `step`
 * and waits there (`none`: runs on until killed); answers once it polls. It inherits this process's environment
 * (DATABASE_URL, STRIPE_API_BASE...).
 */
export async function startCrashingWorker(
  world: SubscriptionWorld,
  step: 'invoice-created' | 'charged' | 'none',
): Promise<CrashingWorker> {
  const child = spawn(
    process.execPath,
    [...TSX_NODE_ARGS, path.join(__dirname, 'crashing-worker.ts'), world.taskQueue, step],
    {
      env: { ...process.env, TEMPORAL_ADDRESS: world.env.address },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = readline.createInterface({ input: child.stdout! });
  const said = (word: string) =>
    new Promise<void>((resolve, reject) => {
      lines.on('line', (line) => line.trim() === word && resolve());
      child.once('exit', (code) => reject(new Error(`the crashing worker exited (${code}) before "${word}"`)));
    });
  const reached = said('reached');
  // A worker killed before its step never says it: that is no failure of the test.
  reached.catch(() => undefined);
  await said('polling');
  return {
    reached,
    kill: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
