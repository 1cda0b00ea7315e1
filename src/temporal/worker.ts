import path from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { config } from '../config';
import type { Db } from '../db/prisma';
import { createActivities } from '../../activities';

export const workflowsPath = path.resolve(__dirname, '..', '..', 'workflows', 'index.ts');

export interface WorkerDeps {
  prisma: Db;
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** A prebuilt bundle (tests build it once); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

export async function createWorker(deps: WorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace ?? config.temporalNamespace,
    taskQueue: deps.taskQueue ?? config.taskQueue,
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath }),
    activities: createActivities({ prisma: deps.prisma }),
  });
}
