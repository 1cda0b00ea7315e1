import path from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { config } from '../config';
import type { Db } from '../db/prisma';
import type { Gateways } from '../payments';
import { createActivities } from '../../activities';
import { billingDataConverter } from './payload-codec';
import type { Mailer } from '../emails';

export const workflowsPath = path.resolve(__dirname, '..', '..', 'workflows', 'index.ts');

/**
 * Modules the workflow bundle evaluates once per worker instead of once per workflow. With the
 * reusable V8 context (the SDK default) every module a workflow imports is instantiated again for
 * each workflow the worker creates or replays, and kept with it in the workflow cache: zod's was
 * most of the per-workflow CPU and memory (README, Performance). zod keeps no per-workflow state.
 */
export const PRELOADED_WORKFLOW_MODULES = [path.resolve(__dirname, '..', '..', 'workflows', 'preload.ts')];

/** Database connections a worker process needs beyond one per activity slot: the webhook relay's passes. */
export const WORKER_EXTRA_CONNECTIONS = 3;

/**
 * The database pool of a worker process whose activity slots are `slots`: as many activities and as
 * many local activities (webhook attempts, subscription steps) may run at once, each holding a connection.
 */
export function workerPoolSize(slots = config.workerActivitySlots): number {
  return 2 * slots + WORKER_EXTRA_CONNECTIONS;
}

export interface WorkerDeps {
  prisma: Db;
  /** Chooses each account's payment gateway (src/gateway-registrations.ts: registeredGateways). */
  gateways: Gateways;
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** A prebuilt bundle (tests build it once); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Where the email activities send (SMTP_URL's server unless given). */
  mailer?: Mailer;
  /** Activities run at once, and local activities at once; the Prisma pool must have twice this many connections (workerPoolSize). */
  activitySlots?: number;
}

export async function createWorker(deps: WorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace ?? config.temporalNamespace,
    taskQueue: deps.taskQueue ?? config.taskQueue,
    ...(deps.workflowBundle
      ? { workflowBundle: deps.workflowBundle }
      : { workflowsPath, bundlerOptions: { preloadModules: PRELOADED_WORKFLOW_MODULES } }),
    activities: createActivities({ prisma: deps.prisma, gateways: deps.gateways, mailer: deps.mailer }),
    ...workerSettings(deps.activitySlots),
  });
}

/** What every worker process of the service runs with, whatever its workflows (the bench's creation baseline too). */
export function workerSettings(activitySlots = config.workerActivitySlots) {
  return {
    // Payloads encrypted before they reach Temporal (src/temporal/payload-codec.ts).
    dataConverter: billingDataConverter(),
    // Without a bound the SDK takes up to 100 activities at once: beyond the pool's connections they
    // queue inside Prisma, where a transaction gives up after 2 s ("Unable to start a transaction in the
    // given time") and a plain query waits with no limit. Bounded, the rest wait at the server, where any
    // worker with a free slot takes them.
    maxConcurrentActivityTaskExecutions: activitySlots,
    // Local activities run in the workflow task that calls them, on the same pool: the same bound (default 100).
    maxConcurrentLocalActivityExecutions: activitySlots,
    maxCachedWorkflows: config.workerCachedWorkflows,
    // The SDK needs the cache to hold every workflow with a task in progress.
    maxConcurrentWorkflowTaskExecutions: Math.min(config.workerWorkflowTaskSlots, config.workerCachedWorkflows),
  } satisfies Partial<WorkerOptions>;
}
