import type { Db } from '../src/db/prisma';

export interface ActivityDeps {
  prisma: Db;
}

/** Every activity the worker runs, bound to its dependencies. Activities must be idempotent. */
export function createActivities(_deps: ActivityDeps) {
  return {};
}

export type Activities = ReturnType<typeof createActivities>;
