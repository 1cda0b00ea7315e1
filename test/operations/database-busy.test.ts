import pg from 'pg';
import { apiClient, createTestAccount, startTestApp, type TestApp } from '../support/harness';
import { createCustomer } from '../support/payments';

// A transaction that cannot run in time under load (Prisma P2028: it waited past maxWait or ran past
// its timeout, e.g. queued on an account's invoice-number counter) rolls back: the API answers 503
// database_busy with Retry-After, never 500, and a retry succeeds once the load is gone.

let app: TestApp;
let patient: TestApp;
beforeAll(async () => {
  // Short bounds, so that a held lock expires the request's transaction within a second.
  app = await startTestApp({ transactionOptions: { maxWait: 1_000, timeout: 700 } });
  // Default bounds: setup and retries go through it, since on a busy machine an ordinary request can
  // itself take longer than the short bounds allow.
  patient = await startTestApp();
});
afterAll(async () => {
  await app.close();
  await patient.close();
});

/** A new account, its API client and a draft invoice of one of its customers. */
async function accountWithDraft(on: TestApp) {
  const { apiKey, accountId } = await createTestAccount(on.prisma);
  const api = apiClient(on.baseUrl, apiKey);
  const customer = await createCustomer(api);
  const draft = await api.post('/invoices', { customer: customer.id, lines: [{ description: 'Audit', amount: 900 }] });
  expect(draft.status).toBe(201);
  return { api, apiKey, accountId, draft };
}

/** Another writer's open transaction holding the account's invoice-number counter row (the caller ends it). */
async function holdInvoiceNumberCounter(accountId: string): Promise<pg.Client> {
  const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(
    'INSERT INTO invoice_number_counters (account_id, last_number) VALUES ($1, 0) ON CONFLICT (account_id) DO UPDATE SET last_number = invoice_number_counters.last_number',
    [accountId],
  );
  return holder;
}

/** Resolves once another session waits on a lock the holder has (the request has locked the invoice by then). */
async function untilSomeoneWaitsOn(holder: pg.Client): Promise<void> {
  const { pid } = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!;
  const watcher = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await watcher.connect();
  try {
    for (;;) {
      const { rows } = await watcher.query('SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [
        pid,
      ]);
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await watcher.end();
  }
}

it('answers 503 database_busy with Retry-After when a transaction expires waiting on a lock, writes nothing, and succeeds on retry', async () => {
  const { api, apiKey, accountId, draft } = await accountWithDraft(patient);
  const impatient = apiClient(app.baseUrl, apiKey);

  // Another writer holds the account's invoice-number counter past the request's transaction timeout,
  // as a long transaction under load would; the request's statement waits in PostgreSQL meanwhile,
  // and its next one finds the transaction expired once the lock is released.
  const holder = await holdInvoiceNumberCounter(accountId);
  const release = new Promise((resolve) => setTimeout(resolve, 1_500)).then(async () => {
    await holder.query('ROLLBACK');
    await holder.end();
  });
  const busy = await impatient.post(`/invoices/${draft.body.id}/finalize`);
  await release;
  expect(busy.status).toBe(503);
  expect(busy.headers.get('retry-after')).toBe('1');
  expect(busy.body).toEqual({
    error: { type: 'api_error', code: 'database_busy', message: expect.stringContaining('nothing was changed') },
  });
  expect((await api.get(`/invoices/${draft.body.id}`)).body).toMatchObject({ status: 'draft', number: null });

  const finalized = await api.post(`/invoices/${draft.body.id}/finalize`);
  expect(finalized.status).toBe(200);
  expect(finalized.body).toMatchObject({ status: 'open', number: expect.stringMatching(/^INV-\d{6}$/) });
});

it('answers 503 database_busy when PostgreSQL ends the request as a deadlock victim (40P01), writes nothing, and succeeds on retry', async () => {
  // Default bounds: the request outlives PostgreSQL's deadlock_timeout (1 s), so it is the one that detects it.
  const { api, accountId, draft } = await accountWithDraft(patient);

  // The holder takes the counter, the request locks the invoice and waits for the counter, then the
  // holder asks for the invoice: a cycle, which PostgreSQL breaks by ending the request's transaction.
  const holder = await holdInvoiceNumberCounter(accountId);
  const request = api.post(`/invoices/${draft.body.id}/finalize`);
  await untilSomeoneWaitsOn(holder);
  const holderWaits = holder
    .query('SELECT id FROM invoices WHERE id = $1 FOR UPDATE', [draft.body.id])
    .then(() => holder.query('ROLLBACK'))
    .finally(() => holder.end());
  const victim = await request;
  await holderWaits;
  expect(victim.status).toBe(503);
  expect(victim.body.error).toMatchObject({ code: 'database_busy' });
  expect((await api.get(`/invoices/${draft.body.id}`)).body).toMatchObject({ status: 'draft', number: null });
  expect((await api.post(`/invoices/${draft.body.id}/finalize`)).status).toBe(200);
});
