import path from 'node:path';

/** Project root: every git-ignored runtime folder (.data, .tools) lives under it. */
export const projectRoot = path.resolve(__dirname, '..');

export const paths = {
  tools: process.env.TOOLS_DIR ?? path.join(projectRoot, '.tools'),
  data: process.env.DATA_DIR ?? path.join(projectRoot, '.data'),
  migrations: path.join(projectRoot, 'prisma', 'migrations'),
};

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

const DURATION_UNITS_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `30d`, `24h`, `15m` or `90s` (a positive whole number and a unit), in milliseconds. */
function durationFromEnv(name: string, fallback: string): number {
  const raw = process.env[name] || fallback;
  const match = /^(\d+)([smhd])$/.exec(raw);
  if (!match || Number(match[1]) <= 0)
    throw new Error(`${name} must be a duration such as 30d, 24h, 15m or 90s, got "${raw}"`);
  return Number(match[1]) * DURATION_UNITS_MS[match[2]!]!;
}

export const config = {
  get port() {
    return intFromEnv('PORT', 3000);
  },
  /**
   * The service's address as customers' browsers reach it: hosted invoice pages, the customer portal and
   * hosted checkout are linked under it (docs/configuration.md).
   */
  get publicUrl() {
    return process.env.PUBLIC_URL || `http://localhost:${intFromEnv('PORT', 3000)}`;
  },
  /**
   * Where the Stripe adapter sends its API calls: Stripe's own address unless set (tests point it at
   * stripe-mock or localstripe, docs/api.md "Payment processors"). A URL: its protocol, host and port are used.
   */
  get stripeApiBase(): URL {
    const raw = process.env.STRIPE_API_BASE || 'https://api.stripe.com';
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Error(`STRIPE_API_BASE must be a URL such as https://api.stripe.com, got "${raw}"`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new Error(`STRIPE_API_BASE must be an http or https URL, got "${raw}"`);
    return url;
  },
  /**
   * Where the hosted pages load Stripe.js for an account connected to Stripe (Stripe's own address unless set;
   * the browser tests serve a stand-in with the same calls, since Stripe cannot be reached from them).
   */
  get stripeJsUrl(): URL {
    const raw = process.env.STRIPE_JS_URL || 'https://js.stripe.com/v3/';
    const url = URL.canParse(raw) ? new URL(raw) : null;
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
      throw new Error(`STRIPE_JS_URL must be an http or https URL such as https://js.stripe.com/v3/, got "${raw}"`);
    return url;
  },
  /**
   * How long a subscription waits after a period's end for that period's late usage events before it
   * invoices them (docs/decisions.md §43); taken by each subscription when it is created.
   */
  get usageGraceMs() {
    return durationFromEnv('USAGE_GRACE', '1h');
  },
  /** Days a finalized invoice's hosted page link stays valid (docs/decisions.md §29). */
  get hostedInvoiceLinkDays() {
    return intFromEnv('HOSTED_INVOICE_LINK_DAYS', 180);
  },
  get databaseUrl() {
    return process.env.DATABASE_URL || undefined;
  },
  get embeddedPostgresPort() {
    return intFromEnv('EMBEDDED_PG_PORT', 54329);
  },
  get temporalAddress() {
    return process.env.TEMPORAL_ADDRESS || `127.0.0.1:${intFromEnv('TEMPORAL_PORT', 7233)}`;
  },
  get temporalNamespace() {
    return process.env.TEMPORAL_NAMESPACE || 'default';
  },
  get temporalUiPort() {
    return intFromEnv('TEMPORAL_UI_PORT', 8233);
  },
  /** Frontend port of the Temporal server `npm start` runs (either engine). */
  get temporalPort() {
    return intFromEnv('TEMPORAL_PORT', 7233);
  },
  /** `dev` (Temporal CLI dev server, SQLite) or `server` (Temporal server on PostgreSQL), for `npm start`. */
  get temporalEngine(): 'dev' | 'server' {
    const engine = process.env.TEMPORAL_ENGINE || 'dev';
    if (engine !== 'dev' && engine !== 'server')
      throw new Error(`TEMPORAL_ENGINE must be dev or server, got "${engine}"`);
    return engine;
  },
  /** PostgreSQL for the `server` engine's databases; unset: the embedded cluster. */
  get temporalDatabaseUrl() {
    return process.env.TEMPORAL_DB_URL || undefined;
  },
  get apiProcesses() {
    return intFromEnv('API_PROCESSES', 1);
  },
  get workerProcesses() {
    return intFromEnv('WORKER_PROCESSES', 1);
  },
  /**
   * When a subscription's workflow runs its first task (docs/decisions.md §14): `at-once` (the default:
   * its `state` query and current details answer from its first second) or `first-step` (a start delay
   * until its first step: a little less worker CPU per creation, and no query or details before then).
   */
  get subscriptionFirstTask(): 'first-step' | 'at-once' {
    const when = process.env.SUBSCRIPTION_FIRST_TASK || 'at-once';
    if (when !== 'first-step' && when !== 'at-once')
      throw new Error(`SUBSCRIPTION_FIRST_TASK must be first-step or at-once, got "${when}"`);
    return when;
  },
  /**
   * Activities one worker process runs at once, and local activities at once. Its database pool has
   * twice this many connections plus a few for the webhook relay, so an activity never waits for a
   * connection (see src/temporal/worker.ts).
   */
  get workerActivitySlots() {
    return intFromEnv('WORKER_ACTIVITY_SLOTS', 10);
  },
  /**
   * Workflows one worker process keeps in memory between their tasks. The rest (idle subscriptions
   * waiting for a renewal) are replayed from history when a task comes; the bound makes the worker's
   * memory flat however many subscriptions there are (README, Performance).
   */
  get workerCachedWorkflows() {
    return intFromEnv('WORKER_CACHED_WORKFLOWS', 250);
  },
  /**
   * Workflow tasks one worker process works on at once (at most WORKER_CACHED_WORKFLOWS: a task in
   * progress keeps its workflow cached). A renewal's task holds its period's local steps (decisions.md
   * §39), which wait for WORKER_ACTIVITY_SLOTS: a task taken beyond what those slots get through in a few
   * seconds waits inside this worker against its 10 s timeout, while in Temporal's queue its wait counts
   * against no timeout and the next free worker takes it. With 200 the 20,000 storm's tasks timed out and
   * were redone (docs/performance.md, Twelfth round).
   */
  get workerWorkflowTaskSlots() {
    return intFromEnv('WORKER_WORKFLOW_TASK_SLOTS', 40);
  },
  /** A prebuilt workflow bundle (`npm run build:workflows`); unset: the worker bundles the workflows at start. */
  get workflowBundle() {
    return process.env.WORKFLOW_BUNDLE || undefined;
  },
  /**
   * Port of the worker's /metrics (the Temporal SDK's metrics and the service's own); unset: none
   * (`npm start` sets it to PORT + 1 when unset). With WORKER_PROCESSES > 1, `npm start` gives worker i
   * the port + i. docs/operations.md, "Metrics and alerts".
   */
  get workerMetricsPort(): number | undefined {
    return process.env.WORKER_METRICS_PORT ? intFromEnv('WORKER_METRICS_PORT', 9464) : undefined;
  },
  /** Seconds a scrape reuses the figures /metrics read from PostgreSQL (0: read at every scrape). */
  get metricsCacheSeconds() {
    return process.env.METRICS_CACHE_SECONDS === '0' ? 0 : intFromEnv('METRICS_CACHE_SECONDS', 10);
  },
  /** Minutes after which a terminal payment still waiting or resolving counts as stuck on /metrics (as `terminal:stuck`'s default). */
  get metricsTerminalStuckMinutes() {
    return intFromEnv('METRICS_TERMINAL_STUCK_MINUTES', 15);
  },
  /** Level of the Temporal SDK's own logs in the worker (bundling, polling, core): TRACE, DEBUG, INFO, WARN or ERROR. */
  get temporalLogLevel(): 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' {
    const level = (process.env.TEMPORAL_LOG_LEVEL || 'WARN').toUpperCase();
    if (!['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'].includes(level))
      throw new Error(`TEMPORAL_LOG_LEVEL must be TRACE, DEBUG, INFO, WARN or ERROR, got "${level}"`);
    return level as 'WARN';
  },
  /** Sustained requests per second per API key (all API processes together); docs/api.md "Rate limits". */
  get rateLimitPerSecond() {
    return intFromEnv('RATE_LIMIT_PER_SECOND', 100);
  },
  /** Requests per API key above the sustained rate within any 10 s. */
  get rateLimitBurst() {
    return intFromEnv('RATE_LIMIT_BURST', 50);
  },
  /**
   * Which proxies in front of the API to believe about the client's address (the first X-Forwarded-For entry
   * they did not add), as Express's `trust proxy` takes it: unset or `false`, none (the socket's address); a
   * number of hops (`1`: one load balancer); or addresses and subnets, comma-separated (`loopback, 10.0.0.0/8`).
   * The per-address limits (failed authentications, dashboard sign-ins, hosted pages) count by that address.
   */
  get trustProxy(): boolean | number | string {
    const raw = process.env.TRUST_PROXY?.trim();
    if (!raw || raw === 'false') return false;
    // Every hop believed: only where nothing but the proxy can reach the API.
    if (raw === 'true') return true;
    if (/^\d+$/.test(raw)) return Number(raw);
    return raw;
  },
  /** Failed authentications (unknown, revoked or expired keys) per client address within any minute, before 429. */
  get authFailuresPerMinute() {
    return intFromEnv('AUTH_FAILURES_PER_MINUTE', 60);
  },
  /** Minutes without a request after which a dashboard session ends (docs/api.md "Dashboard sessions"). */
  get sessionIdleMinutes() {
    return intFromEnv('SESSION_IDLE_MINUTES', 60);
  },
  /** Hours after sign-in after which a dashboard session ends, however active. */
  get sessionMaxHours() {
    return intFromEnv('SESSION_MAX_HOURS', 12);
  },
  /** Failed dashboard sign-ins per email within 15 minutes before 429. */
  get loginFailuresPerEmail() {
    return intFromEnv('LOGIN_FAILURES_PER_EMAIL', 5);
  },
  /** Failed dashboard sign-ins per client address within 15 minutes before 429. */
  get loginFailuresPerAddress() {
    return intFromEnv('LOGIN_FAILURES_PER_ADDRESS', 30);
  },
  /** The Temporal Web UI the dashboard links a subscription's workflow to (docs/operations.md). */
  get temporalUiUrl() {
    return (process.env.TEMPORAL_UI_URL || `http://localhost:${this.temporalUiPort}`).replace(/\/+$/, '');
  },
  /**
   * Where the worker sends customers' emails (docs/configuration.md): `smtp://user:pass@host:587` or
   * `smtps://...`. `npm start` sets it to its local SMTP catcher when unset; unset elsewhere, the
   * worker starts no email (docs/decisions.md §30).
   */
  get smtpUrl() {
    return process.env.SMTP_URL || undefined;
  },
  /** The From of an account's emails when the account set none: its name with this address. */
  get emailFromDefault() {
    return process.env.EMAIL_FROM || 'billing@localhost';
  },
  /** Port of the SMTP catcher `npm start` runs when SMTP_URL is unset; unset or 0: a free port, printed at start. */
  get smtpCatcherPort() {
    return !process.env.SMTP_CATCHER_PORT || process.env.SMTP_CATCHER_PORT === '0'
      ? 0
      : intFromEnv('SMTP_CATCHER_PORT', 0);
  },
  /**
   * How long the retention sweep keeps each kind of row (docs/decisions.md §24, docs/configuration.md):
   * events, finished webhook deliveries, idempotency keys, emails (and the catcher's), in milliseconds.
   */
  get retention() {
    return {
      eventsMs: durationFromEnv('RETENTION_EVENTS', '30d'),
      deliveriesMs: durationFromEnv('RETENTION_WEBHOOK_DELIVERIES', '30d'),
      idempotencyKeysMs: durationFromEnv('RETENTION_IDEMPOTENCY_KEYS', '24h'),
      emailsMs: durationFromEnv('RETENTION_EMAILS', '30d'),
    };
  },
  /** How often the retention sweep's Temporal schedule starts a sweep (docs/operations.md, "Retention"). */
  get retentionSweepEveryMs() {
    return durationFromEnv('RETENTION_SWEEP_EVERY', '1h');
  },
  taskQueue: 'billing',
  get logLevel() {
    return process.env.LOG_LEVEL || 'info';
  },
};
