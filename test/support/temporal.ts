import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Db } from '../../src/db/prisma';
import { createActivities } from '../../activities';
import { temporalCliPath, timeSkippingServerPath } from '../../src/runtime/tools';
import { BILLING_SEARCH_ATTRIBUTES, SEARCH_ATTRIBUTE_FLAGS } from '../../src/temporal/search-attributes';
import { billingDataConverter } from '../../src/temporal/payload-codec';

/** temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD */
const KEYWORD = 2;

/**
 * The Java time-skipping test server from .tools (see scripts/bootstrap.mjs): timers of days pass in milliseconds.
 * The project's search attributes are registered as on the dev server (it refuses undefined ones).
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const env = await startingAgain(() =>
    TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: timeSkippingServerPath() } },
      // The service's payload encryption, as in production (src/temporal/payload-codec.ts).
      client: { dataConverter: billingDataConverter() },
    }),
  );
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(BILLING_SEARCH_ATTRIBUTES.map((key) => [key.name, KEYWORD])),
  });
  return env;
}

/**
 * The SDK gives an ephemeral server 5 s to answer, which a JVM on two busy cores can miss; a second
 * try starts from a warm page cache. Anything but that start failure is thrown at once.
 */
async function startingAgain<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !String((error as Error)?.message).includes('Failed to start ephemeral server'))
        throw error;
    }
  }
}

/** A fresh Temporal CLI dev server (real time), with the project's search attributes. */
export function createLocalEnv(): Promise<TestWorkflowEnvironment> {
  return startingAgain(() =>
    TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: temporalCliPath() },
        extraArgs: SEARCH_ATTRIBUTE_FLAGS,
      },
      client: { dataConverter: billingDataConverter() },
    }),
  );
}

/** A worker on a test environment running the project's workflows (prebuilt bundle) and activities. */
export function createEnvWorker(
  env: TestWorkflowEnvironment,
  prisma: Db,
  taskQueue: string,
  activities?: object,
): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities: activities ?? createActivities({ prisma }),
    dataConverter: billingDataConverter(),
  });
}

type Handle = ReturnType<TestWorkflowEnvironment['client']['workflow']['getHandle']>;

/**
 * Waits, in real time and without skipping any, until the workflow has no workflow task and no activity
 * outstanding (or has closed).
 */
export async function untilWorkflowIdle(handle: Handle, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { events } = await handle.fetchHistory();
    let workflowTaskOpen = false;
    let closed = false;
    const activities = new Set<string>();
    for (const event of events ?? []) {
      if (event.workflowTaskScheduledEventAttributes) workflowTaskOpen = true;
      if (
        event.workflowTaskCompletedEventAttributes ||
        event.workflowTaskFailedEventAttributes ||
        event.workflowTaskTimedOutEventAttributes
      )
        workflowTaskOpen = false;
      if (event.activityTaskScheduledEventAttributes) activities.add(String(event.eventId));
      const ended =
        event.activityTaskCompletedEventAttributes ??
        event.activityTaskFailedEventAttributes ??
        event.activityTaskTimedOutEventAttributes ??
        event.activityTaskCanceledEventAttributes;
      if (ended) activities.delete(String(ended.scheduledEventId));
      if (
        event.workflowExecutionCompletedEventAttributes ||
        event.workflowExecutionFailedEventAttributes ||
        event.workflowExecutionTerminatedEventAttributes ||
        event.workflowExecutionCanceledEventAttributes ||
        event.workflowExecutionContinuedAsNewEventAttributes ||
        event.workflowExecutionTimedOutEventAttributes
      )
        closed = true;
    }
    if (closed || (!workflowTaskOpen && activities.size === 0)) return;
    if (Date.now() > deadline)
      throw new Error(
        `workflow ${handle.workflowId} still busy after ${timeoutMs} ms (workflow task open: ${workflowTaskOpen}, activities open: ${activities.size})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Terminates a workflow on the time-skipping server once nothing of it is in flight. The Java test
 * server holds time skipping while an activity runs and does not let go when the workflow is terminated
 * meanwhile: every later skip of that server then takes real time (12 days: the test's timeout), and its
 * pending call fails the next test file with "Channel has been shut down" when the server is torn down.
 * Time stands still while this waits, so no new task starts before the terminate.
 */
export async function terminateWhenIdle(handle: Handle, reason: string): Promise<void> {
  await untilWorkflowIdle(handle);
  if ((await handle.describe()).status.name === 'RUNNING') await handle.terminate(reason);
}
