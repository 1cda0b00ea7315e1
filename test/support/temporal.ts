import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Db } from '../../src/db/prisma';
import { createActivities } from '../../activities';
import { registeredGateways } from '../../src/gateway-registrations';
import { temporalCliPath, timeSkippingServerPath } from '../../src/runtime/tools';
import { BILLING_SEARCH_ATTRIBUTES, SEARCH_ATTRIBUTE_FLAGS } from '../../src/temporal/search-attributes';
import { billingDataConverter } from '../../src/temporal/payload-codec';
import { freePort } from './ports';

/** temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD */
const KEYWORD = 2;

/**
 * The Java time-skipping test server from .tools (see scripts/bootstrap.mjs): timers of days pass in milliseconds.
 * The project's search attributes are registered as on the dev server (it refuses undefined ones).
 *
 * The server is started here, not by the SDK: the SDK's ephemeral server gives the JVM 5 s to answer, a
 * deadline a loaded machine misses (three tries in a row at a load of 6 to 15). Here the start waits for the
 * server to answer as long as its process lives (bounded by SERVER_START_BOUND_MS, for a JVM that hangs), and a
 * start that fails is tried once more on a new port.
 */
export async function createTimeSkippingEnv(launcher = timeSkippingServerPath()): Promise<TestWorkflowEnvironment> {
  const env = await startTimeSkippingServer(launcher).catch(() => startTimeSkippingServer(launcher));
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(BILLING_SEARCH_ATTRIBUTES.map((key) => [key.name, KEYWORD])),
  });
  return env;
}

/** How long a time-skipping server's JVM may take to answer before its start counts as failed. */
const SERVER_START_BOUND_MS = 180_000;

/** A TestWorkflowEnvironment on a server this process started: its teardown also stops that server. */
class SpawnedServerEnvironment extends TestWorkflowEnvironment {
  javaServer?: ChildProcess;

  override async teardown(): Promise<void> {
    await super.teardown();
    await stopProcess(this.javaServer);
  }
}

/**
 * The SDK's own factory, which connects to an address (`server: { type: 'existing' }`) and, unlike
 * createFromExistingServer, can say the server skips time. It is private in the SDK's types only.
 */
type EnvironmentFactory = {
  create(options: {
    server: { type: 'existing' };
    address: string;
    namespace: string;
    supportsTimeSkipping: boolean;
    client: { dataConverter: ReturnType<typeof billingDataConverter> };
  }): Promise<SpawnedServerEnvironment>;
};

async function startTimeSkippingServer(launcher: string): Promise<TestWorkflowEnvironment> {
  const port = await freePort();
  // Time skipping is driven by the client (TimeSkippingWorkflowClient), so no --enable-time-skipping: as the SDK starts it.
  const server = spawn(launcher, [String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stopOnExit = () => server.kill('SIGKILL');
  process.once('exit', stopOnExit);
  server.once('exit', () => process.removeListener('exit', stopOnExit));
  let stderr = '';
  server.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  try {
    await untilPortAnswers(server, port);
    const env = await (SpawnedServerEnvironment as unknown as EnvironmentFactory).create({
      server: { type: 'existing' },
      address: `127.0.0.1:${port}`,
      namespace: 'default',
      supportsTimeSkipping: true,
      // The service's payload encryption, as in production (src/temporal/payload-codec.ts).
      client: { dataConverter: billingDataConverter() },
    });
    env.javaServer = server;
    return env;
  } catch (error) {
    await stopProcess(server);
    throw new Error(`The time-skipping test server did not start: ${(error as Error).message}\n${stderr}`, {
      cause: error,
    });
  }
}

/** Resolves once `port` accepts a connection; rejects if `server` exits first or past SERVER_START_BOUND_MS. */
async function untilPortAnswers(server: ChildProcess, port: number): Promise<void> {
  const deadline = Date.now() + SERVER_START_BOUND_MS;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null)
      throw new Error(`its process exited (${server.exitCode ?? server.signalCode})`);
    if (await connects(port)) return;
    if (Date.now() > deadline) throw new Error(`port ${port} did not answer within ${SERVER_START_BOUND_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killer);
}

/**
 * The SDK gives an ephemeral server 5 s to answer, which a CLI dev server on two busy cores can miss; a
 * second try starts from a warm page cache. Anything but that start failure is thrown at once.
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
    activities: activities ?? createActivities({ prisma, gateways: registeredGateways(prisma) }),
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
