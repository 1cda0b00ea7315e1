import crypto from 'node:crypto';
import { contractProblems } from './response-contract';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { createAccount } from '../../src/accounts/account.service';
import { listenForApiKeyEndsAt, type Role } from '../../src/http/auth';
import { logger } from '../../src/http/logger';
import type { AppOptions } from '../../src/http/app-deps';
import { registeredGateways } from '../../src/gateway-registrations';
import { createPrisma, type Db } from '../../src/db/prisma';
import { createApp } from '../../src/app';
import { createServer } from '../../src/server';
import { flushAuditEntries } from '../../src/audit/audit.service';
import { createWorker, type WorkerDeps } from '../../src/temporal/worker';
import { connectTemporal, temporalClient } from '../../src/temporal/client';

export interface TestApp {
  baseUrl: string;
  prisma: Db;
  temporal: Client;
  close(): Promise<void>;
}

/**
 * The real app on an ephemeral port, against the suite's PostgreSQL and, unless a test passes the
 * client of its own Temporal environment (e.g. time skipping), the suite's Temporal dev server.
 */
export async function startTestApp(
  options: Pick<
    AppOptions,
    | 'taskQueue'
    | 'rateLimit'
    | 'authCacheMs'
    | 'gateways'
    | 'temporalNow'
    | 'authFailuresPerMinute'
    | 'trustProxy'
    | 'sessionSettings'
    | 'loginLimits'
    | 'dashboardDir'
    | 'pageLimits'
    | 'mailer'
  > & {
    temporal?: Client;
    /** Interactive transaction bounds of the app's Prisma client (production's unless given). */
    transactionOptions?: { maxWait: number; timeout: number };
  } = {},
): Promise<TestApp> {
  const { transactionOptions, ...appOptions } = options;
  const prisma = createPrisma(process.env.DATABASE_URL!, 5, transactionOptions);
  const connection = options.temporal ? undefined : await connectTemporal({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = options.temporal ?? temporalClient(connection!, 'default');
  // Every test app hears keys' ends as an API process does: a key revoked through another app is refused at once.
  const apiKeyEnds = await listenForApiKeyEndsAt(process.env.DATABASE_URL!, logger);
  const server = createServer(createApp({ ...appOptions, prisma, temporal, apiKeyEnds }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    prisma,
    temporal,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await flushAuditEntries();
      await connection?.close();
      await apiKeyEnds.close();
      await prisma.$disconnect();
    },
  };
}

/** A worker on the suite's dev server, with a task queue of its own so test files don't steal each other's tasks. */
export async function startTestWorker(
  prisma: Db,
  taskQueue: string,
  address = process.env.TEMPORAL_ADDRESS!,
  options: Partial<Pick<WorkerDeps, 'mailer' | 'gateways'>> = {},
): Promise<{
  worker: Worker;
  running: Promise<void>;
  stop(): Promise<void>;
}> {
  const connection = await NativeConnection.connect({ address });
  const worker = await createWorker({
    prisma,
    connection,
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    gateways: registeredGateways(prisma),
    ...options,
  });
  const running = worker.run();
  return {
    worker,
    running,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

export interface TestAccount {
  accountId: string;
  apiKey: string;
}

/**
 * A new account with a key. New accounts prorate subscription changes (docs/decisions.md §25); the
 * tests written before proration describe `none`, so test accounts are set to it unless
 * `prorationBehavior` says otherwise (`'account default'` keeps what a new account gets).
 */
export async function createTestAccount(
  prisma: Db,
  options: {
    role?: Role;
    paymentPlans?: boolean;
    name?: string;
    prorationBehavior?: 'create_prorations' | 'always_invoice' | 'none' | 'account default';
  } = {},
): Promise<TestAccount> {
  const created = await createAccount(prisma, {
    name: options.name ?? 'Test account',
    role: options.role ?? 'developer',
    paymentPlans: options.paymentPlans,
  });
  const behavior = options.prorationBehavior ?? 'none';
  if (behavior !== 'account default')
    await prisma.account.update({ where: { id: created.account_id }, data: { prorationBehavior: behavior } });
  return { accountId: created.account_id, apiKey: created.api_key };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small HTTP client bound to one API key. */
export function apiClient(baseUrl: string, apiKey?: string) {
  async function request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(apiKey ? { 'cc-api-key': apiKey } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    const problems = await contractProblems(baseUrl, method, path, {
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: parsed,
    });
    if (problems.length > 0) {
      throw new Error(
        `${method} ${path} answered ${response.status} outside its OpenAPI contract: ${problems.join('; ')}\n${text.slice(0, 500)}`,
      );
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => request<T>('GET', path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      request<T>('POST', path, body ?? {}, headers),
    put: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      request<T>('PUT', path, body ?? {}, headers),
    patch: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      request<T>('PATCH', path, body ?? {}, headers),
    delete: <T = any>(path: string, headers?: Record<string, string>) => request<T>('DELETE', path, undefined, headers),
    request,
  };
}

export type ApiClient = ReturnType<typeof apiClient>;

/** Events the account has written, oldest first. */
export async function eventsOf(prisma: Db, accountId: string, type?: string) {
  return prisma.event.findMany({ where: { accountId, ...(type ? { type } : {}) }, orderBy: { seq: 'asc' } });
}

export interface TwoAccountApp {
  app: TestApp;
  /** Client of the account under test. */
  api: ApiClient;
  accountId: string;
  /** Its API key, for requests apiClient does not make (a PDF read as bytes). */
  apiKey: string;
  /** Client of a second account, for isolation checks. */
  other: ApiClient;
  otherAccountId: string;
}

/** The app plus two accounts: the one under test and another that must never see its data. */
export async function startTwoAccountApp(accountName?: string): Promise<TwoAccountApp> {
  const app = await startTestApp();
  const account = await createTestAccount(app.prisma, { name: accountName });
  const otherAccount = await createTestAccount(app.prisma, { name: 'Other' });
  return {
    app,
    api: apiClient(app.baseUrl, account.apiKey),
    accountId: account.accountId,
    apiKey: account.apiKey,
    other: apiClient(app.baseUrl, otherAccount.apiKey),
    otherAccountId: otherAccount.accountId,
  };
}

let runtimeInstalled = false;

/** Temporal's Rust core logs warnings only, once per test process. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // another test support module installed it in this process
  }
}

/** The answer's body, when its status is `status`; an error naming `what` and the answer otherwise. */
export function expectStatus(response: { status: number; body: any }, status: number, what = 'request') {
  if (response.status !== status)
    throw new Error(`${what} answered ${response.status}, expected ${status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** The API with a worker beside it on a task queue of its own, on the suite's dev server, and one account. */
export interface WorkerApp {
  app: TestApp;
  worker: Awaited<ReturnType<typeof startTestWorker>>;
  api: ApiClient;
  accountId: string;
  close(): Promise<void>;
}

/**
 * The stack of the tests that need the dev server's real time and Web UI (a test clock, the support
 * command, the Web UI's pages): the app and a worker on the task queue `<name>-<uuid>`, and an account.
 */
export async function startWorkerApp(
  name: string,
  account: Parameters<typeof createTestAccount>[1] = {},
): Promise<WorkerApp> {
  quietRuntime();
  const taskQueue = `${name}-${crypto.randomUUID()}`;
  const app = await startTestApp({ taskQueue });
  const worker = await startTestWorker(app.prisma, taskQueue);
  const created = await createTestAccount(app.prisma, account);
  return {
    app,
    worker,
    api: apiClient(app.baseUrl, created.apiKey),
    accountId: created.accountId,
    async close() {
      await worker.stop();
      await app.close();
    },
  };
}

/** Audit entries are written once the answer is sent: polls until the account's entries of `route` number `count`. */
export async function auditEntriesOf(client: ApiClient, route: string, count: number): Promise<any[]> {
  for (let tries = 0; tries < 100; tries++) {
    const listed = (expectStatus(await client.get('/audit-log?take=100'), 200).data as any[]).filter(
      (entry) => entry.route === route,
    );
    if (listed.length >= count) return listed;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`fewer than ${count} audit entries of ${route}`);
}
