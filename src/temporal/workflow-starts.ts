import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { defineSearchAttributeKey, type SearchAttributePair } from '@temporalio/common';
import type { Db } from '../db/prisma';
import type { AnyTx } from '../db/sql';
import {
  deleteWorkflowStart,
  deleteWorkflowStarts,
  insertWorkflowStart,
  startsOlderThan,
  type WorkflowStartRow,
  hasWorkflowStart,
} from './workflow-start.records';
import { logger as defaultLogger, type Logger } from '../http/logger';
import { forEachLimited } from '../lib/concurrency';

/**
 * The workflow-start outbox (decisions.md §14, table workflow_starts). A workflow the API decides to
 * start is written as a row in the transaction that writes what it is about; the API starts it right
 * after the commit (startRecordedWorkflow) and deletes the row, and the worker's sweep
 * (startWorkflowStartSweeper, src/cli/worker.ts) starts the rows still there a few seconds later: the
 * API died between commit and start, or Temporal did not answer then. A start is repeatable: the
 * workflow id rejects a second start (and a run that has completed is not started again), which
 * counts as started.
 */
export interface WorkflowStart {
  workflowId: string;
  accountId: string;
  workflowType: string;
  taskQueue: string;
  args: unknown[];
  memo?: Record<string, unknown>;
  /** Keyword search attributes set at the start. */
  searchAttributes?: { key: { name: string }; value: string }[];
  staticSummary?: string;
  staticDetails?: string;
  /**
   * The workflow has nothing to do before this time (epoch ms, on the workflow service's clock): the
   * API's start delays its first workflow task until then (Temporal's start delay; an update still
   * runs it at once). Not stored: a start the sweep makes runs its first task at once.
   */
  firstTaskAt?: number;
}

/** What the row's `options` column holds. */
interface StoredOptions {
  memo?: Record<string, unknown>;
  searchAttributes?: { name: string; value: string }[];
  staticSummary?: string;
  staticDetails?: string;
}

/** The values of a workflow_starts row (args and options as JSON text), for an insert in raw SQL. */
export function startColumns(start: WorkflowStart): WorkflowStartRow {
  const { options } = startRowOf(start);
  return {
    workflowId: start.workflowId,
    accountId: start.accountId,
    workflowType: start.workflowType,
    taskQueue: start.taskQueue,
    args: JSON.stringify(start.args),
    options: JSON.stringify(options),
  };
}

/** Writes the start in the caller's transaction: the workflow is started once that commits. */
export async function recordWorkflowStart(tx: AnyTx, start: WorkflowStart): Promise<void> {
  await insertWorkflowStart(tx, startColumns(start));
}

interface StartRow {
  workflowId: string;
  workflowType: string;
  taskQueue: string;
  args: unknown;
  options: StoredOptions;
}

function startRowOf(start: WorkflowStart): StartRow {
  const options: StoredOptions = {
    memo: start.memo,
    searchAttributes: start.searchAttributes?.map(({ key, value }) => ({ name: key.name, value })),
    staticSummary: start.staticSummary,
    staticDetails: start.staticDetails,
  };
  return {
    workflowId: start.workflowId,
    workflowType: start.workflowType,
    taskQueue: start.taskQueue,
    args: start.args,
    options,
  };
}

/** Starts the recorded workflow; one already started (or already run) under its id counts as started. */
async function startRow(temporal: Client, row: StartRow, eagerStart: boolean, startDelayMs = 0): Promise<void> {
  const { options } = row;
  try {
    await temporal.workflow.start(row.workflowType, {
      workflowId: row.workflowId,
      taskQueue: row.taskQueue,
      args: row.args as unknown[],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
      memo: options.memo,
      staticSummary: options.staticSummary,
      staticDetails: options.staticDetails,
      typedSearchAttributes: (options.searchAttributes ?? []).map(({ name, value }): SearchAttributePair => ({
        key: defineSearchAttributeKey(name, 'KEYWORD'),
        value,
      })),
      requestEagerStart: eagerStart,
      ...(startDelayMs > 0 ? { startDelay: startDelayMs } : {}),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** How long the API gives Temporal to take a start before it leaves it to the sweep. */
export const START_DEADLINE_MS = 2_000;

/**
 * How long the rows of starts made wait to be deleted together (docs/performance.md, "Twenty-first round"):
 * one statement for the starts of this window instead of one each. Far below the sweep's 5 s (olderThanMs),
 * so the sweep does not find them; a row it finds all the same (this process died with rows still to
 * delete) is a start already made, which it counts as started and deletes.
 */
export const FORGET_WINDOW_MS = 100;

/** Per database: the workflow ids whose rows are to be deleted at the end of the window, once it is set. */
const startsToForget = new WeakMap<Db, Set<string>>();

function forgetStart(prisma: Db, workflowId: string, log: Logger): void {
  const pending = startsToForget.get(prisma);
  if (pending) {
    pending.add(workflowId);
    return;
  }
  const ids = new Set([workflowId]);
  startsToForget.set(prisma, ids);
  // unref: a window still open does not keep a process from exiting (the sweep deletes what it left).
  setTimeout(() => {
    startsToForget.delete(prisma);
    const workflowIds = [...ids];
    deleteWorkflowStarts(prisma, workflowIds).catch((error: unknown) =>
      log.warn({ err: error, workflowIds }, 'workflow start rows not deleted; the sweep deletes them'),
    );
  }, FORGET_WINDOW_MS).unref();
}

/**
 * Right after the commit: starts the recorded workflow under a short deadline. Started, the row is
 * deleted without waiting, with the other starts' of the same moment (FORGET_WINDOW_MS); not started
 * (Temporal down or slow), the row stays for the worker's sweep. Answers whether it started.
 */
export async function startRecordedWorkflow(
  deps: { prisma: Db; temporal: Client; logger?: Logger; temporalNow?: () => Promise<number> },
  start: WorkflowStart,
  deadlineMs = START_DEADLINE_MS,
): Promise<boolean> {
  const log = deps.logger ?? defaultLogger;
  const row = startRowOf(start);
  try {
    const startDelayMs =
      start.firstTaskAt === undefined
        ? 0
        : start.firstTaskAt - (deps.temporalNow ? await deps.temporalNow() : Date.now());
    await deps.temporal.withDeadline(Date.now() + deadlineMs, () => startRow(deps.temporal, row, false, startDelayMs));
  } catch (error) {
    log.warn(
      { err: error, workflowId: start.workflowId },
      'workflow not started; the worker starts it from workflow_starts',
    );
    return false;
  }
  forgetStart(deps.prisma, start.workflowId, log);
  return true;
}

/** Whether a workflow is recorded to start and not started yet (as far as the outbox knows). */
export async function isStartPending(prisma: Db, workflowId: string): Promise<boolean> {
  return hasWorkflowStart(prisma, workflowId);
}

export interface SweeperOptions {
  prisma: Db;
  temporal: Client;
  /** Sweeps the starts of this task queue (the worker's). */
  taskQueue: string;
  /** Rows younger than this are left to the API that wrote them. */
  olderThanMs?: number;
  pollIntervalMs?: number;
  /** Starts per pass. */
  batchSize?: number;
  eagerStart?: boolean;
  /** false: no polling, only runOnce() (tests). */
  background?: boolean;
  logger?: Logger;
}

export interface Sweeper {
  /** Starts every row older than `olderThanMs`; answers how many it started. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** The worker's sweep of workflow_starts: polls, starts what the API left, deletes what is started. */
export function startWorkflowStartSweeper(options: SweeperOptions): Sweeper {
  const { prisma, temporal, taskQueue } = options;
  const olderThanMs = options.olderThanMs ?? 5_000;
  const log = options.logger ?? defaultLogger;

  async function runOnce(): Promise<number> {
    const rows = (await startsOlderThan(prisma, taskQueue, olderThanMs, options.batchSize ?? 100)) as StartRow[];
    let started = 0;
    await forEachLimited(rows, 16, async (row) => {
      try {
        await startRow(temporal, row, options.eagerStart ?? false);
        await deleteWorkflowStart(prisma, row.workflowId);
        started += 1;
      } catch (error) {
        log.warn({ err: error, workflowId: row.workflowId }, 'recorded workflow start failed; the next sweep retries');
      }
    });
    if (started > 0) log.info({ started, taskQueue }, 'started workflows left in workflow_starts');
    return started;
  }

  let stopped = false;
  let pass: Promise<unknown> | null = null;
  let poll: NodeJS.Timeout | undefined;
  if (options.background !== false) {
    poll = setInterval(() => {
      if (stopped || pass) return;
      pass = runOnce()
        .catch((error: unknown) => log.error({ err: error }, 'workflow start sweep failed; the next poll retries'))
        .finally(() => (pass = null));
    }, options.pollIntervalMs ?? 2_000);
  }
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(poll);
      await pass;
    },
  };
}
