import cluster from 'node:cluster';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/prisma';
import { BACKLOG_COUNT_LIMIT, BACKLOG_DELIVERY_STATUSES, readFigures } from './billing-figures.records';
import { config } from '../config';
import { API_SUBSCRIPTION_STATUSES } from '../subscriptions';
import { PLAN_STATUSES } from '../payment-plans';
import { OPEN_TERMINAL_STATES } from '../payment-plans';
import { ledgerRegistry } from '../transactions';

/** Route label of a request no route matched: one value, so unknown paths cannot grow the series. */
export const UNMATCHED_ROUTE = '(unmatched)';

export interface ApiMetrics {
  registry: Registry;
  contentType: string;
  /** Counts a finished request and its duration under its route template (`/customers/{externalKey}`). */
  observe(method: string, route: string, status: number, seconds: number): void;
  /** The text of GET /metrics: this process's registry, or with node:cluster every API process's, aggregated by the primary. */
  render(): Promise<string>;
}

/**
 * The API's Prometheus metrics (GET /metrics, docs/operations.md "Metrics and alerts"), one registry per
 * app, with the ledger's money counters (src/transactions/ledger-metrics.ts). Request series are kept in
 * process; the database gauges are read from PostgreSQL at scrape time, at most once per
 * METRICS_CACHE_SECONDS, so every API process answers the same for them (the cluster aggregate keeps
 * their maximum, not their sum).
 */
export function createApiMetrics(prisma: Db): ApiMetrics {
  const own = new Registry();
  collectDefaultMetrics({ register: own });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'billing_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames,
    registers: [own],
  });
  const duration = new Histogram({
    name: 'billing_http_request_duration_seconds',
    help: 'Time from the request to the last byte of the answer, by method, route template and status',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [own],
  });
  new Gauge({
    name: 'billing_metrics_processes',
    help: 'API processes whose metrics this scrape shows (API_PROCESSES when every one answered)',
    registers: [own],
    aggregator: 'sum',
  }).set(1);

  registerDatabaseGauges(own, prisma);

  const registry = Registry.merge([own, ledgerRegistry]);
  if (cluster.isWorker) {
    // The primary's AggregatorRegistry asks each process for this registry (src/cli/api.ts).
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([registry]);
  }

  return {
    registry,
    contentType: registry.contentType,
    observe(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    render: () => (cluster.isWorker ? askPrimary() : registry.metrics()),
  };
}

/**
 * The gauges read from PostgreSQL: read at most once per METRICS_CACHE_SECONDS (a failed read too), shared by
 * the gauges that show them (prom-client renders the metrics concurrently, awaiting each one's `collect`).
 */
function registerDatabaseGauges(own: Registry, prisma: Db): void {
  const cacheMs = config.metricsCacheSeconds * 1000;
  const stuckMinutes = config.metricsTerminalStuckMinutes;
  let readAt = -Infinity;
  let pass: Promise<void> | undefined;
  const collect = () => {
    if (Date.now() - readAt < cacheMs) return undefined;
    pass ??= readDatabase().finally(() => {
      readAt = Date.now();
      pass = undefined;
    });
    return pass;
  };
  const gauge = (name: string, help: string, labels: string[] = []) =>
    new Gauge({ name, help, labelNames: labels, registers: [own], collect, aggregator: 'max' });
  const outboxPending = gauge(
    'billing_outbox_pending_events',
    `Events written but not yet dispatched to webhook delivery workflows (counted up to ${BACKLOG_COUNT_LIMIT})`,
  );
  const outboxLag = gauge(
    'billing_outbox_lag_seconds',
    'Age of the oldest event not yet dispatched (0 when none waits): how far the webhook relay is behind',
  );
  const deliveries = gauge(
    'billing_webhook_deliveries_backlog',
    'Webhook deliveries not finished, by status: pending (attempt 1 not answered yet), retry (failing, retries left); exact, from the list counters',
    ['status'],
  );
  const deliveriesAge = gauge(
    'billing_webhook_deliveries_oldest_age_seconds',
    'Age of the oldest webhook delivery in each backlog status (0 when none)',
    ['status'],
  );
  const startsPending = gauge(
    'billing_workflow_starts_pending',
    `Workflow starts recorded in workflow_starts and not started yet (the worker's sweep starts them; counted up to ${BACKLOG_COUNT_LIMIT})`,
  );
  const startsAge = gauge(
    'billing_workflow_starts_oldest_age_seconds',
    'Age of the oldest workflow start not started yet (0 when none)',
  );
  const subscriptions = gauge('billing_subscriptions', 'Subscriptions by status (past_due: in dunning)', ['status']);
  const plans = gauge('billing_payment_plans', 'Payment plans by status (past_due: an installment overdue)', [
    'status',
  ]);
  const stuck = gauge(
    'billing_terminal_payments_stuck',
    `Terminal payments in waiting, resolving or approved_no_credential for more than METRICS_TERMINAL_STUCK_MINUTES (${stuckMinutes}), by state: npm run support -- terminal:stuck lists them`,
    ['state'],
  );
  const databaseUp = new Gauge({
    name: 'billing_metrics_database_up',
    help: '1 when the last read of the database figures succeeded, 0 when it failed or timed out (those gauges are then absent)',
    registers: [own],
    collect,
    aggregator: 'min',
  });
  const databaseGauges = [
    outboxPending,
    outboxLag,
    deliveries,
    deliveriesAge,
    startsPending,
    startsAge,
    subscriptions,
    plans,
    stuck,
  ];

  async function readDatabase(): Promise<void> {
    try {
      const figures = await readFigures(prisma, stuckMinutes);
      outboxPending.set(figures.outboxPending);
      outboxLag.set(figures.outboxLagSeconds);
      startsPending.set(figures.startsPending);
      startsAge.set(figures.startsOldestSeconds);
      for (const status of BACKLOG_DELIVERY_STATUSES) {
        deliveries.set({ status }, figures.deliveries[status].count);
        deliveriesAge.set({ status }, figures.deliveries[status].oldestSeconds);
      }
      for (const status of API_SUBSCRIPTION_STATUSES)
        subscriptions.set({ status }, figures.subscriptions.get(status) ?? 0);
      for (const status of PLAN_STATUSES) plans.set({ status }, figures.plans.get(status) ?? 0);
      for (const state of OPEN_TERMINAL_STATES) stuck.set({ state }, figures.stuck.get(state) ?? 0);
      databaseUp.set(1);
    } catch {
      for (const metric of databaseGauges) metric.reset();
      databaseUp.set(0);
    }
  }
}

const CLUSTER_METRICS_REQUEST = 'billing:cluster-metrics-request';
const CLUSTER_METRICS_ANSWER = 'billing:cluster-metrics-answer';
interface ClusterMetricsMessage {
  type: string;
  id: number;
  text?: string;
  error?: string;
}
const isMessage = (message: unknown): message is ClusterMetricsMessage =>
  typeof message === 'object' && message !== null && typeof (message as { type?: unknown }).type === 'string';

let nextRequest = 0;
/** A cluster process's scrape: the primary gathers every process's registry and answers the aggregate. */
function askPrimary(): Promise<string> {
  const id = nextRequest++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error('the API primary did not answer the metrics request within 10 s')),
      10_000,
    );
    const listener = (message: unknown) => {
      if (!isMessage(message) || message.type !== CLUSTER_METRICS_ANSWER || message.id !== id) return;
      finish(message.error === undefined ? undefined : new Error(message.error), message.text);
    };
    function finish(error?: Error, text?: string) {
      clearTimeout(timer);
      process.off('message', listener);
      if (error) reject(error);
      else resolve(text ?? '');
    }
    process.on('message', listener);
    process.send!({ type: CLUSTER_METRICS_REQUEST, id });
  });
}

/**
 * In the node:cluster primary (API_PROCESSES > 1): answers a process's metrics request with every
 * process's metrics, aggregated by prom-client's AggregatorRegistry (counters and histograms summed,
 * database gauges as their maximum), so one scrape of the shared port sees all N processes.
 */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage(message) || message.type !== CLUSTER_METRICS_REQUEST) return;
    const answer = (fields: { text?: string; error?: string }) => {
      if (worker.isConnected()) worker.send({ type: CLUSTER_METRICS_ANSWER, id: message.id, ...fields });
    };
    aggregator.clusterMetrics().then(
      (text) => answer({ text }),
      (error: Error) => answer({ error: error.message }),
    );
  });
}
