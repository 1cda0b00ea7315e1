import type { Client as TemporalClient } from '@temporalio/client';
import type { Db } from '../db/prisma';
import type { Gateways } from '../payments';
import type { Logger } from './logger';
import type { Mailer } from '../emails';
import type { RateLimitSettings } from './rate-limit';
import type { ApiKeyEnds } from './auth';

/** What the API's routes are built with; createApp (src/app.ts) takes the same. */
export interface AppDeps {
  prisma: Db;
  temporal: TemporalClient;
  /** Task queue of the workflows the API starts (config.taskQueue unless a test isolates its own). */
  taskQueue?: string;
  logger?: Logger;
  /** Per-key rate limit; from the environment (RATE_LIMIT_*, API_PROCESSES) unless given. */
  rateLimit?: RateLimitSettings;
  /** Failed authentications per client address per minute before 429 (AUTH_FAILURES_PER_MINUTE unless given). */
  authFailuresPerMinute?: number;
  /** Which proxies to believe about the client's address (TRUST_PROXY unless given; config.trustProxy). */
  trustProxy?: boolean | number | string;
  /** Chooses each account's payment gateway (src/payments/gateways.ts; tests give one that slows down or loses answers). */
  gateways: Gateways;
  /**
   * The workflow service's current time (Unix ms), which a new subscription's dates are computed at,
   * as its workflow runs on it: the wall clock unless given (tests on Temporal's time-skipping server pass its clock).
   */
  temporalNow?: () => Promise<number>;
  /** How long a looked-up API key is trusted (AUTH_CACHE_MS unless given; tests shorten it). */
  authCacheMs?: number;
  /**
   * Keys' ends as PostgreSQL announces them (listenForApiKeyEndsAt): a revoked key leaves the cache at once. Without
   * them a revoked key is refused within authCacheMs.
   */
  apiKeyEnds?: ApiKeyEnds;
  /** Dashboard session lifetimes (SESSION_IDLE_MINUTES, SESSION_MAX_HOURS unless given; tests shorten them). */
  sessionSettings?: { idleMs: number; absoluteMs: number };
  /** Failed dashboard sign-ins allowed per email and per client address within 15 minutes (LOGIN_FAILURES_* unless given). */
  loginLimits?: { perEmail: number; perAddress: number };
  /** Rate limits of the customer-facing pages (src/hosted-pages/page.ts defaults unless given; tests lower them). */
  pageLimits?: { postsPerMinute: number; requestsPerMinute: number };
  /** The built dashboard app (dist/dashboard unless given). */
  dashboardDir?: string;
  /** Where the dashboard's emails to users go (invitations, password resets): SMTP_URL's server unless given. */
  mailer?: Mailer;
}

/** What createApp takes: the gateways are the registered adapters (src/gateway-registrations.ts) unless given. */
export type AppOptions = Omit<AppDeps, 'gateways'> & { gateways?: AppDeps['gateways'] };
