import crypto from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { Api, MAX_BODY_BYTES } from './http/api';
import { createAuthenticator } from './http/auth';
import {
  createAuthFailureLimiter,
  createRateLimitCheck,
  rateLimitSettingsFromConfig,
  type RateLimitSettings,
} from './http/rate-limit';
import { ApiError, MethodNotAllowedError } from './http/errors';
import { databaseBusy, databaseUnavailable, isDatabaseBusy, isDatabaseUnavailable } from './db/availability';
import { logger as defaultLogger, type Logger } from './http/logger';
import type { AppDeps, AppOptions } from './http/app-deps';
import { registerCustomerRoutes } from './customers';
import { registerWebhookRoutes } from './webhooks';
import { registerAuditRoutes } from './audit';
import { registerSearchRoutes } from './search';
import { registerCustomerReportRoutes } from './support';
import { auditRecorder } from './audit';
import { registerApiKeyRoutes } from './accounts';
import { registerBusinessDetailsRoutes } from './accounts';
import { registerGatewaySettingsRoutes } from './gateway-settings';
import { PROCESSOR_WEBHOOKS_PATH } from './gateway-settings';
import { stripeWebhookRouter } from './stripe-gateway';
import { registerProductRoutes } from './catalog';
import { registerPriceRoutes } from './catalog';
import { registerTaxRateRoutes } from './catalog';
import { registerPaymentMethodRoutes } from './payments';
import { registeredGateways } from './gateway-registrations';
import { registerInvoiceRoutes } from './invoices';
import { registerDocumentRoutes } from './documents';
import { registerCaughtEmailRoutes } from './emails';
import { registerEmailRoutes } from './emails';
import { registerTransactionRoutes } from './transactions';
import { registerCreditNoteRoutes } from './credit-notes';
import { registerCouponRoutes } from './coupons';
import { registerUsageRoutes } from './usage';
import { registerTerminalRoutes } from './terminals';
import {
  notifyPlanUpdated,
  recordProcessorSaleReport,
  registerPaymentPlanRoutes,
  tellingPlansOfChangedPayments,
} from './payment-plans';
import { registerSubscriptionRoutes } from './subscriptions';
import { registerTestClockRoutes } from './test-clocks';
import { registerReportRoutes } from './reports';
import { registerEventRoutes } from './events';
import { registerPortalRoutes } from './billing-portal';
import { registerCheckoutRoutes } from './checkout';
import { checkHealth, healthSchema } from './health';
import { docsRouter } from './http/docs-page';
import { createApiMetrics, UNMATCHED_ROUTE } from './observability';
import type { ApiMetrics } from './observability';
import { securityHeaders } from './http/security-headers';
import { compressAnswersUnless, sendCompressed } from './http/compression';
import { config } from './config';
import { CODEC_PATH, codecRouter } from './temporal';
import { dashboardRouter } from './http/dashboard-page';
import { SESSION_PATH, sessionRouter } from './dashboard-auth';
import { JOIN_PATH, joinRouter, loggablePath, registerTeamRoutes } from './dashboard-auth';
import { PASSWORD_RESET_PATH, passwordResetRouter } from './dashboard-auth';
import { createMailer, type Mailer } from './emails';
import { createSessionAuthenticator, readCookie, SESSION_COOKIE } from './dashboard-auth';
import { sessionSettingsFromConfig } from './dashboard-auth';
import type { SessionSettings } from './dashboard-auth';
import { createLoginLimiter } from './dashboard-auth';
import { hostedPagesRouter } from './hosted-pages';
import { recordProcessorReport } from './use-cases';
import { tellingSettledInvoices } from './invoices';
import { noticeInvoicesSettled } from './subscriptions';
import { redactPageToken } from './lib/page-tokens';

export type { AppDeps, AppOptions } from './http/app-deps';

export function createApp(options: AppOptions): express.Express {
  // Every route that moves money asks the same choice of gateways for the account's adapter.
  const deps: AppDeps = {
    ...options,
    gateways:
      options.gateways ??
      registeredGateways(options.prisma, {
        client: options.temporal,
        taskQueue: options.taskQueue ?? config.taskQueue,
      }),
  };
  const log = deps.logger ?? defaultLogger;
  const app = express();
  const metrics = createApiMetrics(deps.prisma);
  app.disable('x-powered-by');
  // Security headers on every answer (docs/api.md "Security"); no CORS headers: browsers on other origins may not call the API.
  app.use(securityHeaders);
  // Answers the client can take compressed are (docs/decisions.md §19): the dashboard's script, the hosted pages, long JSON
  // lists. A request only the API's routes answer is given to compression when its answer is sent (src/http/api.ts).
  app.use(compressAnswersUnless((req) => answeredByApiAlone(api, req.path)));
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Behind a load balancer every request comes from its address: the per-address limits need the client's.
  try {
    app.set('trust proxy', deps.trustProxy ?? config.trustProxy);
  } catch (error) {
    // Refused at start, not at the first request: a proxy list that cannot be read would trust nobody, or the wrong hop.
    throw new Error(
      `TRUST_PROXY must be a number of hops or addresses and subnets, comma-separated (loopback, 10.0.0.0/8): ${(error as Error).message}`,
      { cause: error },
    );
  }

  app.use(requestLog(metrics, log));
  // A request only the API's routes answer goes to them now, past the routers of the pages, the dashboard and the
  // operations endpoints it could not match (their dozen layers were walked by every API request: docs/performance.md,
  // "Reads, third pass"); one they do not answer is 404 or 405 as below.
  app.use((req, res, next) => {
    if (!answeredByApiAlone(api, req.path)) next();
    else api.router(req, res, (error?: unknown) => next(error ?? noRouteError(api, req)));
  });

  const rateLimit = deps.rateLimit ?? rateLimitSettingsFromConfig();
  const authFailures = createAuthFailureLimiter(
    deps.authFailuresPerMinute ?? config.authFailuresPerMinute,
    rateLimit.processes,
  );
  const authenticateKey = createAuthenticator(deps.prisma, deps.authCacheMs, authFailures, deps.apiKeyEnds);
  const sessionSettings = deps.sessionSettings ?? sessionSettingsFromConfig();
  const authenticateSession = createSessionAuthenticator(deps.prisma, sessionSettings);
  // Every write the API answered with success is audited (src/audit).
  const recordWrite = auditRecorder(deps.prisma);
  // An open invoice a request paid or voided: its subscription's workflow is told (docs/decisions.md §7).
  const tellSettled = noticeInvoicesSettled(deps.temporal);
  const api = new Api(
    deps.prisma,
    (req, res, sessionOnly) => {
      // The dashboard's own endpoints take its session alone, whatever key is sent (docs/decisions.md §21).
      if (sessionOnly) return authenticateSession(req, res);
      const key = req.header('cc-api-key');
      // A request with a key is the API's as before, whatever cookie its client also sends (docs/api.md "Dashboard sessions").
      if (key === undefined && readCookie(req, SESSION_COOKIE) !== undefined) return authenticateSession(req);
      return authenticateKey(key, () => req.ip);
    },
    createRateLimitCheck(rateLimit),
    recordWrite,
    (work) => tellingSettledInvoices(tellSettled, work),
  );
  // Every route of the API is mounted here, module by module.
  const routeDeps = deps;
  // Invitations and password resets are emailed by the request that makes their link (docs/decisions.md §32).
  const userMailer = deps.mailer ?? createMailer(config.smtpUrl);
  registerApiRoutes(api, routeDeps, userMailer);

  describeOperationsEndpoints(api);
  // Routes outside `api` name their template here (the request log and metrics read it): `/docs`, `/docs/{file}`.
  app.use(['/health', '/openapi.json', '/metrics', '/docs'], (req, res, next) => {
    res.locals.route = req.path === '/' ? req.baseUrl : `${req.baseUrl}/{file}`;
    next();
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.render());
  });
  app.get('/health', async (_req, res) => {
    const health = await checkHealth(deps);
    res.status(health.status === 'ok' ? 200 : 503).json(health);
  });
  const openApi = api.openApiDocument();
  app.get('/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  app.use(underSegment('docs', docsRouter()));
  // The Temporal Web UI's codec endpoint, for operators (src/temporal/codec-server.ts); not part of the API's contract.
  app.use(CODEC_PATH, codecRouter());
  // The dashboard (docs/api.md "Dashboard sessions"): its sign-in endpoints and its single-page app.
  mountDashboardSignIn(app, deps, { rateLimit, sessionSettings, userMailer });
  app.use(underSegment('dashboard', dashboardRouter(deps.dashboardDir)));
  // Pages customers open from a link (docs/api.md "Hosted pages"): HTML with their own policy, never the API's JSON.
  app.use(underSegment('hosted', hostedPagesRouter(routeDeps, log)));
  // Each connected account's Stripe events, signed with its webhook secret (docs/api.md, "Payment processors").
  mountProcessorWebhooks(app, deps);
  app.use(api.router);
  app.locals.api = api;

  app.use((req) => {
    throw noRouteError(api, req);
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const apiError = toApiError(error, res.locals.requestId as string, log);
    for (const [name, value] of Object.entries(apiError.headers())) res.setHeader(name, value);
    sendCompressed(req, res, () => res.status(apiError.status).json(apiError.toBody()));
  });
  return app;
}

/** Names every request with an id (the client's x-request-id when given) and logs and measures it once answered. */
function requestLog(metrics: ApiMetrics, log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const requestId = req.header('x-request-id')?.slice(0, 100) || crypto.randomUUID();
    res.setHeader('x-request-id', requestId);
    res.locals.requestId = requestId;
    const started = process.hrtime.bigint();
    // Read before routing: a mounted router (the dashboard's) rewrites req.url while it answers. Not read, nor the log's
    // record made, when info is not logged (LOG_LEVEL=warn or above).
    const logged = log.isLevelEnabled('info');
    const path = logged ? redactPageToken(loggablePath(req.path)) : '';
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const route = (res.locals.route as string | undefined) ?? UNMATCHED_ROUTE;
      metrics.observe(req.method, route, res.statusCode, durationMs / 1000);
      if (!logged) return;
      log.info(
        {
          requestId,
          accountId: (res.locals.accountId as string | undefined) ?? null,
          method: req.method,
          route,
          path,
          status: res.statusCode,
          durationMs,
        },
        'request',
      );
    });
    next();
  };
}

/** What a request no route answered gets: 405 with `Allow` for a documented path, otherwise 404. */
function noRouteError(api: Api, req: Request): ApiError {
  const allowed = api.allowedMethods(req.path);
  if (allowed.length > 0) return new MethodNotAllowedError(req.method, req.path, allowed);
  return new ApiError('not_found', 'route_not_found', `No route for ${req.method} ${req.path}`);
}

/** A path's first segment, without case as Express matches paths: `/customers/cus_1` -> `customers`. */
function firstSegmentOf(path: string): string {
  const end = path.indexOf('/', 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

/** The first segments of the paths served outside the API's routes (their requests are compressed as they start). */
const SEGMENTS_OUTSIDE_API = new Set(
  [
    '/health',
    '/openapi.json',
    '/metrics',
    '/docs',
    '/dashboard',
    '/hosted',
    CODEC_PATH,
    SESSION_PATH,
    PASSWORD_RESET_PATH,
    JOIN_PATH,
    PROCESSOR_WEBHOOKS_PATH,
  ].map(firstSegmentOf),
);

/**
 * Whether a request's path can only be answered by the API's routes (or its 404 and 405). Such a request never
 * reaches a router mounted after the API's early dispatch: a path served outside the API under one of the API's
 * segments must be named in SEGMENTS_OUTSIDE_API (test/api/routing.test.ts holds every mount to that).
 */
export function answeredByApiAlone(api: Api, path: string): boolean {
  const segment = firstSegmentOf(path);
  return !SEGMENTS_OUTSIDE_API.has(segment) && api.servesSegment(segment);
}

/**
 * A router whose paths all start with `/segment` (the docs page, the dashboard, the hosted pages), entered by the
 * requests under it only: mounted bare, each of these routers was walked by every API request, at the cost of a
 * router's setup and its layers' matching (docs/performance.md, "Reads, second pass"). The segment is compared
 * without case, as Express matches paths.
 */
function underSegment(segment: string, router: express.RequestHandler): express.RequestHandler {
  return (req, res, next) => {
    const path = req.path;
    const end = path.indexOf('/', 1);
    const first = end === -1 ? path.slice(1) : path.slice(1, end);
    if (first.length === segment.length && first.toLowerCase() === segment) router(req, res, next);
    else next();
  };
}

/** Every route of the API, module by module. */
function registerApiRoutes(api: Api, routeDeps: AppDeps, userMailer: Mailer): void {
  registerCustomerRoutes(api, routeDeps);
  registerWebhookRoutes(api, routeDeps);
  registerApiKeyRoutes(api, routeDeps);
  registerBusinessDetailsRoutes(api, routeDeps);
  registerGatewaySettingsRoutes(api, routeDeps);
  registerProductRoutes(api, routeDeps);
  registerPriceRoutes(api, routeDeps);
  registerTaxRateRoutes(api, routeDeps);
  registerPaymentMethodRoutes(api, routeDeps);
  registerInvoiceRoutes(api, routeDeps);
  registerDocumentRoutes(api, routeDeps);
  registerEmailRoutes(api, routeDeps);
  registerTransactionRoutes(api, routeDeps);
  registerCreditNoteRoutes(api, routeDeps);
  registerCouponRoutes(api, routeDeps);
  registerUsageRoutes(api, routeDeps);
  registerTerminalRoutes(api, routeDeps);
  registerPaymentPlanRoutes(api, routeDeps);
  registerSubscriptionRoutes(api, routeDeps);
  registerTestClockRoutes(api, routeDeps);
  registerCaughtEmailRoutes(api, routeDeps);
  registerReportRoutes(api, routeDeps);
  registerSearchRoutes(api, routeDeps);
  registerEventRoutes(api, routeDeps);
  registerAuditRoutes(api, routeDeps);
  registerCustomerReportRoutes(api, routeDeps);
  registerPortalRoutes(api, routeDeps);
  registerCheckoutRoutes(api, routeDeps);
  registerTeamRoutes(api, routeDeps, userMailer);
}

/** The operations endpoints served outside `api` (no API key), described in /openapi.json beside the API's own. */
function describeOperationsEndpoints(api: Api): void {
  api.registry.registerPath({
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    summary: 'Liveness of the API and its dependencies (no API key needed)',
    tags: ['Operations'],
    responses: {
      200: { description: 'PostgreSQL and Temporal answer', content: { 'application/json': { schema: healthSchema } } },
      503: { description: 'A dependency does not answer', content: { 'application/json': { schema: healthSchema } } },
    },
  });
  api.registry.registerPath({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 document (no API key needed)',
    tags: ['Operations'],
    responses: {
      200: { description: 'The document', content: { 'application/json': { schema: z.object({}).passthrough() } } },
    },
  });
  api.registry.registerPath({
    method: 'get',
    path: '/docs',
    operationId: 'getDocs',
    summary: 'This document as a browsable API reference page (Swagger UI served by the API, no API key needed)',
    tags: ['Operations'],
    responses: { 200: { description: 'The HTML page', content: { 'text/html': { schema: z.string() } } } },
  });
  api.registry.registerPath({
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    summary:
      'Prometheus metrics of the API: requests by route and status, latency, charges and refunds, subscriptions by status, backlogs (no API key needed)',
    tags: ['Operations'],
    responses: {
      200: { description: 'Prometheus text format 0.0.4', content: { 'text/plain': { schema: z.string() } } },
    },
  });
}

/** Each connected account's processor events: payments and refunds settled by their owners, terminal sales ended. */
function mountProcessorWebhooks(app: express.Express, deps: AppDeps): void {
  app.use(
    `${PROCESSOR_WEBHOOKS_PATH}/stripe`,
    stripeWebhookRouter(
      deps.prisma,
      (report) =>
        // A later outcome is recorded by its entry's owner, as the reconciliation's; the subscription's workflow is told
        // of an invoice it settles, and the payment plan's of a charge it settles, as for a request (decisions.md §9).
        tellingSettledInvoices(noticeInvoicesSettled(deps.temporal), () =>
          tellingPlansOfChangedPayments(deps.temporal, () => recordProcessorReport(deps.prisma, deps.gateways, report)),
        ),
      // A terminal sale's outcome is recorded as the terminal's report, and the plan's workflow told, as the test
      // helpers do for the simulated terminal.
      async (report) => {
        const payment = await recordProcessorSaleReport(deps.prisma, deps.gateways, report);
        if (payment) await notifyPlanUpdated(deps.temporal, payment.planId);
      },
    ),
  );
}

/** The dashboard's sign-in, join and password-reset endpoints, each behind its own failure limits. */
function mountDashboardSignIn(
  app: express.Express,
  deps: AppDeps,
  {
    rateLimit,
    sessionSettings,
    userMailer,
  }: { rateLimit: RateLimitSettings; sessionSettings: SessionSettings; userMailer: Mailer },
): void {
  const loginLimits = deps.loginLimits ?? {
    perEmail: config.loginFailuresPerEmail,
    perAddress: config.loginFailuresPerAddress,
  };
  const loginLimiter = createLoginLimiter(loginLimits, rateLimit.processes);
  app.use(SESSION_PATH, sessionRouter(deps, sessionSettings, loginLimiter));
  // "Forgot password": every request counts, on limits of its own as large as the sign-in's (docs/decisions.md §32).
  const resetLimiter = createLoginLimiter(
    loginLimits,
    rateLimit.processes,
    'Too many password reset requests; retry after the Retry-After seconds.',
  );
  app.use(PASSWORD_RESET_PATH, passwordResetRouter(deps, resetLimiter, userMailer));
  app.use(JOIN_PATH, joinRouter(deps, sessionSettings, loginLimiter));
}

function toApiError(error: unknown, requestId?: string, log?: Logger): ApiError {
  if (error instanceof ApiError) return error;
  if (isDatabaseUnavailable(error)) {
    log?.warn({ requestId, err: error }, 'database unavailable');
    return databaseUnavailable();
  }
  if (isDatabaseBusy(error)) {
    log?.warn({ requestId, err: error }, 'database busy: a transaction could not run in time');
    return databaseBusy();
  }
  const httpError = error as { type?: string; status?: number; message?: string };
  if (httpError?.type === 'entity.parse.failed') {
    return new ApiError('invalid_request_error', 'body_not_json', 'The request body is not valid JSON.', 'body');
  }
  if (httpError?.type === 'body.not_utf8') {
    return new ApiError('invalid_request_error', 'body_not_utf8', 'The request body is not valid UTF-8.', 'body');
  }
  if (httpError?.type === 'entity.too.large') {
    return new ApiError(
      'invalid_request_error',
      'body_too_large',
      `The request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB.`,
      'body',
      413,
    );
  }
  if (httpError?.status && httpError.status >= 400 && httpError.status < 500) {
    return new ApiError(
      'invalid_request_error',
      'bad_request',
      httpError.message ?? 'Bad request',
      undefined,
      httpError.status,
    );
  }
  log?.error({ requestId, err: error }, 'unhandled error');
  return new ApiError('api_error', 'internal_error', 'An internal error occurred; it has been logged.');
}
