import { apiClient, createTestAccount, startTestApp, type TestApp } from './support/harness';
import { allowPrivateWebhookTargets, writeEvent } from './support/webhooks';

/** GET /metrics on the API: Prometheus text from prom-client. */
let app: TestApp;
beforeAll(async () => {
  allowPrivateWebhookTargets();
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
    expect(valueOf(text, 'billing_http_requests_total{method="GET",route="/customers/{externalKey}",status="404"}')).toBe(2);
    expect(valueOf(text, 'billing_http_requests_total{method="GET",route="/customers/{externalKey}",status="200"}')).toBe(1);
    expect(valueOf(text, 'billing_http_requests_total{method="POST",route="/customers",status="201"}')).toBe(1);
    expect(valueOf(text, 'billing_http_requests_total{method="GET",route="(unmatched)",status="404"}')).toBe(1);
    expect(valueOf(text, 'billing_http_request_duration_seconds_count{method="GET",route="/customers/{externalKey}",status="404"}')).toBe(2);
    expect(valueOf(text, 'billing_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/customers",status="201"}')).toBe(1);
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
    for (const status of ['pending', 'retry', 'success', 'failure']) expect(valueOf(text, `billing_webhook_deliveries{status="${status}"}`)).toBeGreaterThanOrEqual(0);

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
    await app.prisma.event.update({ where: { id: event.id }, data: { createdAt: new Date(Date.now() - 2 * 365 * 86_400_000) } });
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
