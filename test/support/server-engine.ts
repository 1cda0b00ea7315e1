import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Connection, type Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { Client as PgClient } from 'pg';
import { paths } from '../../src/config';
import { migrate } from '../../src/db/migrator';
import { createPrisma, type Db } from '../../src/db/prisma';
import { spawnService } from '../../src/runtime/processes';
import { stopChild, type DevServer } from '../../src/runtime/temporal-dev-server';
import { freeTemporalServerPort, startTemporalServer } from '../../src/runtime/temporal-server';
import { waitForHealth } from '../../src/runtime/wait';
import { freePort } from './ports';
import { temporalClient } from '../../src/temporal/client';

/**
 * The production topology on one machine, as `TEMPORAL_ENGINE=server API_PROCESSES=N WORKER_PROCESSES=M
 * npm start` runs it: the Temporal server on PostgreSQL (its own databases in the suite's cluster), a
 * billing database of its own (so the workers' outbox relay sees only this stack's events), the API as
 * N node:cluster processes on one port and M worker processes on task queue `billing`.
 */
export interface ServerStack {
  baseUrl: string;
  databaseUrl: string;
  prisma: Db;
  temporal: Client;
  /** The API's primary process (node:cluster); its children serve the port. */
  api: ChildProcess;
  workers: ChildProcess[];
  /** Log file of every process of the stack. */
  logFile: string;
  stop(): Promise<void>;
}

async function createDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new PgClient({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Resolves once `count` workers poll the task queue. */
async function waitForPollers(client: Client, taskQueue: string, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const described = await client.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: taskQueue },
      taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    if ((described.pollers?.length ?? 0) >= count) return;
    if (Date.now() > deadline)
      throw new Error(`${described.pollers?.length ?? 0} of ${count} workers poll ${taskQueue} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function startServerStack(options: {
  apiProcesses: number;
  workerProcesses: number;
}): Promise<ServerStack> {
  const suffix = crypto.randomBytes(4).toString('hex');
  // Outside the suite's run folder (removed at its end), so that a failed run leaves its log to read.
  const logDir = path.join(os.tmpdir(), 'billing-server-engine');
  fs.mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${suffix}.log`);
  const adminUrl = process.env.DATABASE_URL!;
  const databaseUrl = await createDatabase(adminUrl, `billing_engine_${suffix}`);
  await migrate(databaseUrl, paths.migrations);
  const temporalDbUrl = new URL(adminUrl);
  temporalDbUrl.pathname = `/temporal_${suffix}`;
  const [port, temporalPort, uiPort] = [await freePort(), await freeTemporalServerPort(), await freePort()];
  const temporalServer: DevServer = await startTemporalServer({
    databaseUrl: temporalDbUrl.toString(),
    port: temporalPort,
    uiPort,
    namespace: 'default',
    logFile,
  });

  const out = fs.openSync(logFile, 'a');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalServer.address,
    PORT: String(port),
    API_PROCESSES: String(options.apiProcesses),
    WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    LOG_LEVEL: 'warn',
  };
  const api = spawnService('api.ts', env, ['ignore', out, out]);
  const workers = Array.from({ length: options.workerProcesses }, () =>
    spawnService('worker.ts', env, ['ignore', out, out]),
  );
  const connection = await Connection.connect({ address: temporalServer.address });
  const temporal = temporalClient(connection, 'default');
  const prisma = createPrisma(databaseUrl, 5);
  const stop = async () => {
    await Promise.all([api, ...workers].map(stopChild));
    await prisma.$disconnect();
    await connection.close();
    await temporalServer.stop();
  };
  try {
    if (!(await waitForHealth(`http://127.0.0.1:${port}/health`, 120_000)))
      throw new Error(`the API did not answer (log: ${logFile})`);
    await waitForPollers(temporal, 'billing', options.workerProcesses, 120_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl: `http://127.0.0.1:${port}`, databaseUrl, prisma, temporal, api, workers, logFile, stop };
}
