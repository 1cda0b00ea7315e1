import { Context } from '@temporalio/activity';

/** How often a running activity tells the server its worker is alive (the SDK throttles to 80% of the heartbeat timeout). */
export const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Each activity heartbeats while it runs, so that the workflows' `heartbeatTimeout` (a few seconds)
 * notices a worker that died (kill -9, lost machine) and the activity is retried on another worker
 * within seconds, instead of after its whole start-to-close timeout. An activity that ends within
 * HEARTBEAT_EVERY_MS sends none. Called outside a worker (tests calling an activity directly), or as a
 * local activity, the function runs as it is.
 */
export function withHeartbeats<T extends Record<string, (...args: any[]) => Promise<unknown>>>(activities: T): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, activity]) => [
      name,
      async (...args: unknown[]) => {
        let context: Context;
        try {
          context = Context.current();
        } catch {
          return activity(...args);
        }
        // A local activity runs inside its workflow task, whose own timeout notices a dead worker.
        if (context.info.isLocal) return activity(...args);
        const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
        try {
          return await activity(...args);
        } finally {
          clearInterval(timer);
        }
      },
    ]),
  ) as T;
}
