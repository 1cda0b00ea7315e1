import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The time a service records (created, finalized_at, paid_at, event createdAt...). It is the wall
 * clock, except inside `atTime(ms, ...)`: the activities of a workflow on a test clock, and the API
 * requests about a test clock's customers, run there with the clock's time (src/test-clocks/).
 */
const scope = new AsyncLocalStorage<number>();

export function currentTime(): Date {
  return new Date(scope.getStore() ?? Date.now());
}

/** Runs `work` with currentTime() answering `ms`; with `ms` undefined, on the wall clock. */
export function atTime<T>(ms: number | undefined, work: () => Promise<T>): Promise<T> {
  return ms === undefined ? work() : scope.run(ms, work);
}

/** An activity's input from a workflow on a test clock carries the clock's time (Unix ms) at the step. */
export interface ClockTimed {
  clockTime?: number;
}
