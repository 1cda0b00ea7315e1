import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { spawnService } from '../../src/runtime/processes';
import { apiClient, createTestAccount, startTestApp, type TestApp } from '../support/harness';
import { CARDS, customerWithCard, simpleInvoice } from '../support/payments';
import { freePort } from '../support/ports';
import { allowPrivateWebhookTargets, waitUntil, writeEvent } from '../support/webhooks';
import { sample } from '../support/metrics';

/** GET /metrics on the API: Prometheus text from prom-client (docs/operations.md, "Metrics and alerts"). */
let app: TestApp;
beforeAll(async () => {
  allowPrivateWebhookTargets();
  // Each scrape reads the database figures again (production reuses them for 10 s).
  process.env.METRICS_CACHE_SECONDS = '0';
  app = await startTestApp();
});
afterAll(() => app.close());

async function scrape(): Promise<string> {
  const response = await fetch(`${app.baseUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain;.*version=0\.0\.4/);
  return response.text();
}

/** The value of one series, or undefined when absent. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  it('counts requests and their latency by method, route template and status, without ids in labels', async () => {
    const { apiKey } = await createTestAccount(app.prisma);
    const api = apiClient(app.baseUrl, apiKey);
    const created = await api.post('/customers', { name: 'Metered Person' });
    await api.get(`/customers/${created.body.id}`);
    await api.get('/customers/cus_missing');
    await api.get('/customers/cus_missing');
    await fetch(`${app.baseUrl}/no/such/route/cus_secret`);

    const text = await scrape();
    expect(
      valueOf(text, 'billing_http_requests_total{method="GET",route="/customers/{externalKey}",status="404"}'),
    ).toBe(2);
    expect(
      valueOf(text, 'billing_http_requests_total{method="GET",route="/customers/{externalKey}",status="200"}'),
    ).toBe(1);
    expect(valueOf(text, 'billing_http_requests_total{method="POST",route="/customers",status="201"}')).toBe(1);
    expect(valueOf(text, 'billing_http_requests_total{method="GET",route="(unmatched)",status="404"}')).toBe(1);
    expect(
      valueOf(
        text,
        'billing_http_request_duration_seconds_count{method="GET",route="/customers/{externalKey}",status="404"}',
      ),
    ).toBe(2);
    expect(
      valueOf(
        text,
        'billing_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/customers",status="201"}',
      ),
    ).toBe(1);
    expect(text).toContain('# TYPE billing_http_request_duration_seconds histogram');
    expect(text).toContain('process_cpu_seconds_total');
    // Labels are templates: no customer id, no account, no unmatched path.
    expect(text).not.toContain(created.body.id);
    expect(text).not.toContain('cus_missing');
    expect(text).not.toContain('cus_secret');
  });

  it('shows the outbox lag and webhook deliveries by status, read from PostgreSQL', async () => {
    const { accountId } = await createTestAccount(app.prisma);
    // An event nobody dispatches in this file (no relay runs here), written an hour ago: the outbox is behind by at least that.
    const event = await writeEvent(app.prisma, accountId);
    await app.prisma.event.update({ where: { id: event.id }, data: { insertedAt: new Date(Date.now() - 3600_000) } });
    const text = await scrape();
    expect(valueOf(text, 'billing_metrics_database_up')).toBe(1);
    expect(valueOf(text, 'billing_outbox_pending_events')).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'billing_outbox_lag_seconds')).toBeGreaterThanOrEqual(3600);
    for (const status of ['pending', 'retry']) {
      expect(valueOf(text, `billing_webhook_deliveries_backlog{status="${status}"}`)).toBeGreaterThanOrEqual(0);
      expect(valueOf(text, `billing_webhook_deliveries_oldest_age_seconds{status="${status}"}`)).toBeGreaterThanOrEqual(
        0,
      );
    }
    // The whole table is not counted: finished deliveries are counted by the worker's billing_webhook_attempts.
    expect(text).not.toMatch(/^billing_webhook_deliveries\{/m);
    expect(valueOf(text, 'billing_workflow_starts_pending')).toBeGreaterThanOrEqual(0);

    // Once dispatched the event no longer counts. The pending count is table-wide and other files write
    // and dispatch events meanwhile, so the proof is the lag: this event was the only one an hour old
    // (what other files leave undispatched was written during this run, well within the hour).
    await app.prisma.event.update({ where: { id: event.id }, data: { dispatchedAt: new Date() } });
    const after = await scrape();
    expect(valueOf(after, 'billing_outbox_lag_seconds')).toBeLessThan(3600);
  });

  it('measures the lag from when an event was written, not from its date (test-clock events are dated at the clock)', async () => {
    const { accountId } = await createTestAccount(app.prisma);
    const event = await writeEvent(app.prisma, accountId);
    // As a test clock frozen two years back dates its events.
    await app.prisma.event.update({
      where: { id: event.id },
      data: { createdAt: new Date(Date.now() - 2 * 365 * 86_400_000) },
    });
    const text = await scrape();
    expect(valueOf(text, 'billing_outbox_pending_events')).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'billing_outbox_lag_seconds')).toBeLessThan(3600);
    await app.prisma.event.update({ where: { id: event.id }, data: { dispatchedAt: new Date() } });
  });

  it('is documented and needs no API key', async () => {
    const document = (await apiClient(app.baseUrl).get('/openapi.json')).body;
    expect(document.paths['/metrics'].get.operationId).toBe('getMetrics');
    expect((await fetch(`${app.baseUrl}/metrics`)).status).toBe(200);
  });
});

describe('money on /metrics', () => {
  it('counts a succeeded and a declined charge and a refund by outcome, failure code and currency, without account labels', async () => {
    const { apiKey, accountId } = await createTestAccount(app.prisma);
    const api = apiClient(app.baseUrl, apiKey);
    const before = await scrape();
    const { customer: paying } = await customerWithCard(api, CARDS.succeeds);
    const paid = await simpleInvoice(api, paying.id, 2500);
    expect((await api.put(`/invoices/${paid.id}`, {})).body.status).toBe('paid');
    const { customer: declining } = await customerWithCard(api, CARDS.declined);
    const declined = await simpleInvoice(api, declining.id, 700);
    expect((await api.put(`/invoices/${declined.id}`, {})).body.status).toBe('open');
    expect((await api.post(`/invoices/${paid.id}/refund`, { amount: 1000 })).status).toBe(201);

    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(moved('billing_charge_attempts_total', { currency: 'USD' })).toBe(2);
    expect(moved('billing_charges_total', { outcome: 'succeeded', failure_code: '' })).toBe(1);
    expect(moved('billing_charges_total', { outcome: 'failed', failure_code: 'card_declined' })).toBe(1);
    expect(moved('billing_charged_cents_total', { currency: 'USD' })).toBe(2500);
    expect(moved('billing_refunds_total', { outcome: 'succeeded', failure_code: '' })).toBe(1);
    expect(moved('billing_refunded_cents_total', { currency: 'USD' })).toBe(1000);
    expect(after).toContain('# TYPE billing_charges_total counter');
    expect(after).not.toContain(accountId);
    expect(after).not.toContain(paid.id);
  });

  it('a repeated payment request counts its charge once', async () => {
    const { apiKey } = await createTestAccount(app.prisma);
    const api = apiClient(app.baseUrl, apiKey);
    const { customer } = await customerWithCard(api, CARDS.succeeds);
    const invoice = await simpleInvoice(api, customer.id, 1200);
    const before = await scrape();
    const headers = { 'idempotency-key': `pay-${invoice.id}` };
    await Promise.all([
      api.put(`/invoices/${invoice.id}`, {}, headers),
      api.put(`/invoices/${invoice.id}`, {}, headers),
      api.put(`/invoices/${invoice.id}`, {}),
    ]);
    const after = await scrape();
    const labels = { outcome: 'succeeded', failure_code: '' };
    expect(
      (sample(after, 'billing_charges_total', labels) ?? 0) - (sample(before, 'billing_charges_total', labels) ?? 0),
    ).toBe(1);
    expect(
      (sample(after, 'billing_charged_cents_total', { currency: 'USD' }) ?? 0) -
        (sample(before, 'billing_charged_cents_total', { currency: 'USD' }) ?? 0),
    ).toBe(1200);
  });
});

describe('API_PROCESSES=2', () => {
  let api: ChildProcess | undefined;
  afterAll(async () => {
    if (!api || api.exitCode !== null) return;
    const exited = new Promise((resolve) => api!.once('exit', resolve));
    api.kill('SIGTERM');
    await exited;
  });

  it('one scrape of the shared port shows every process: counters summed, database gauges not', async () => {
    const port = await freePort();
    api = spawnService(
      'api.ts',
      { ...process.env, PORT: String(port), API_PROCESSES: '2', LOG_LEVEL: 'warn', METRICS_CACHE_SECONDS: '0' },
      ['ignore', 'ignore', 'inherit'],
    );
    const base = `http://127.0.0.1:${port}`;
    await waitUntil(async () => (await fetch(`${base}/health`).catch(() => undefined))?.ok || undefined, 60_000);
    // Each on a new connection, so the requests spread over both processes.
    const both = await waitUntil(async () => {
      const text = await (await fetch(`${base}/metrics`, { headers: { connection: 'close' } })).text();
      return valueOf(text, 'billing_metrics_processes') === 2 ? text : undefined;
    }, 30_000);
    expect(valueOf(both, 'billing_metrics_database_up')).toBe(1);
    // The same database figure from each process is shown once (the maximum), not doubled. Other test
    // files write to this database meanwhile, so the aggregate is compared with direct reads taken just
    // before and after it, and read again until the figure held still between them.
    const active = 'billing_subscriptions{status="active"}';
    const steady = await waitUntil(async () => {
      const before = valueOf(await scrape(), active);
      const text = await (await fetch(`${base}/metrics`, { headers: { connection: 'close' } })).text();
      const after = valueOf(await scrape(), active);
      return before === after && valueOf(text, 'billing_metrics_processes') === 2
        ? { aggregate: valueOf(text, active), direct: after }
        : undefined;
    }, 30_000);
    expect(steady.aggregate).toBe(steady.direct);
    for (let i = 0; i < 10; i += 1) await fetch(`${base}/health`, { headers: { connection: 'close' } });
    const text = await (await fetch(`${base}/metrics`, { headers: { connection: 'close' } })).text();
    expect(
      valueOf(text, 'billing_http_requests_total{method="GET",route="/health",status="200"}'),
    ).toBeGreaterThanOrEqual(10);
    expect(path.basename(String(api.spawnargs.at(-1)))).toBe('api.ts');
  }, 90_000);
});
