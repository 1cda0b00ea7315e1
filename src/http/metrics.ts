import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/prisma';
import { DELIVERY_STATUSES } from '../webhooks/webhook.schemas';

/** Route label of a request no route matched: one value, so unknown paths cannot grow the series. */
export const UNMATCHED_ROUTE = '(unmatched)';

export interface ApiMetrics {
  registry: Registry;
  /** Counts a finished request and its duration under its route template (`/customers/{externalKey}`). */
  observe(method: string, route: string, status: number, seconds: number): void;
}

/**
 * The API's Prometheus metrics (GET /metrics, docs/operations.md "Metrics"), one registry per app.
 * Request series are kept in process; the outbox and webhook gauges are read from PostgreSQL at each
 * scrape, so every API process answers the same for them.
 */
export function createApiMetrics(prisma: Db): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'billing_http_requests_total', help: 'HTTP requests answered, by method, route template and status', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'billing_http_request_duration_seconds',
    help: 'Time from the request to the last byte of the answer, by method, route template and status',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  // The database figures are read once per scrape, shared by the gauges that show them (prom-client
  // renders the metrics concurrently, awaiting each one's `collect`).
  let pass: Promise<void> | undefined;
  const collect = () => {
    pass ??= readDatabase().finally(() => {
      pass = undefined;
    });
    return pass;
  };
  const outboxPending = new Gauge({
    name: 'billing_outbox_pending_events',
    help: 'Events written but not yet dispatched to webhook delivery workflows',
    registers: [registry],
    collect,
  });
  const outboxLag = new Gauge({
    name: 'billing_outbox_lag_seconds',
    help: 'Age of the oldest event not yet dispatched (0 when none waits): how far the webhook relay is behind',
    registers: [registry],
    collect,
  });
  const deliveries = new Gauge({
    name: 'billing_webhook_deliveries',
    help: 'Webhook deliveries (one per event and destination) by current status: pending, retry, success, failure',
    labelNames: ['status'],
    registers: [registry],
    collect,
  });
  const databaseUp = new Gauge({
    name: 'billing_metrics_database_up',
    help: '1 when this scrape could read the outbox and delivery figures from PostgreSQL',
    registers: [registry],
    collect,
  });

  async function readDatabase(): Promise<void> {
    try {
      const [outbox] = await prisma.$queryRaw<{ pending: bigint; oldest: Date | null }[]>`
        SELECT count(*) AS pending, min(inserted_at) AS oldest FROM events WHERE dispatched_at IS NULL`;
      const byStatus = await prisma.$queryRaw<{ status: string; count: bigint }[]>`
        SELECT status, count(*) AS count FROM webhook_deliveries GROUP BY status`;
      outboxPending.set(Number(outbox?.pending ?? 0));
      outboxLag.set(outbox?.oldest ? Math.max(0, (Date.now() - outbox.oldest.getTime()) / 1000) : 0);
      for (const status of DELIVERY_STATUSES) deliveries.set({ status }, Number(byStatus.find((row) => row.status === status)?.count ?? 0));
      databaseUp.set(1);
    } catch {
      outboxPending.reset();
      outboxLag.reset();
      deliveries.reset();
      databaseUp.set(0);
    }
  }

  return {
    registry,
    observe(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}
