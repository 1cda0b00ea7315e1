import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { config } from '../config';
import { RateLimitedError } from './errors';

export interface RateLimitSettings {
  /** Sustained requests per second per API key, over all API processes. */
  perSecond: number;
  /** Requests per key allowed above the sustained rate within any burst window. */
  burst: number;
  /** API processes sharing the limit: each keeps its own buckets with 1/N of it. */
  processes: number;
}

/** Seconds of the window in which the burst allowance refills. */
export const BURST_WINDOW_SECONDS = 10;

export function rateLimitSettingsFromConfig(): RateLimitSettings {
  return { perSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst, processes: config.apiProcesses };
}

/**
 * Per-API-key limit (docs/api.md "Rate limits"): rate-limiter-flexible's BurstyRateLimiter, a steady
 * bucket refilled every second plus a burst bucket refilled every BURST_WINDOW_SECONDS. State is in
 * this process's memory; with API_PROCESSES=N each process allows 1/N (node:cluster spreads
 * connections round-robin), so no shared store is queried per request.
 */
export function createRateLimiter(settings: RateLimitSettings): (keyId: string) => Promise<void> {
  const share = (points: number) => Math.max(1, Math.floor(points / settings.processes));
  const limiter = new BurstyRateLimiter(
    new RateLimiterMemory({ keyPrefix: 'steady', points: share(settings.perSecond), duration: 1 }),
    new RateLimiterMemory({ keyPrefix: 'burst', points: share(settings.burst), duration: BURST_WINDOW_SECONDS }),
  );
  return async (keyId) => {
    try {
      await limiter.consume(keyId);
    } catch (error) {
      if (error instanceof RateLimiterRes)
        throw new RateLimitedError(Math.max(1, Math.ceil(error.msBeforeNext / 1000)));
      throw error;
    }
  };
}

/** Seconds of the window over which failed authentications are counted per client address. */
export const AUTH_FAILURE_WINDOW_SECONDS = 60;

export interface AuthFailureLimiter {
  /** Throws 429 while `address` has used up its failed authentications. */
  assertAllowed(address: string): Promise<void>;
  /** Counts one failed authentication (an API key the database does not know, revoked or expired). */
  recordFailure(address: string): Promise<void>;
}

/**
 * Guessing keys costs the guesser nothing and the database a lookup each: after `perMinute` failed
 * authentications from one client address within AUTH_FAILURE_WINDOW_SECONDS, that address gets 429
 * before any lookup until the window passes (docs/api.md "Rate limits"). Keys this process has
 * already found valid are not held up (src/http/auth.ts). Per API process, like the key limit.
 */
export function createAuthFailureLimiter(perMinute: number, processes = 1): AuthFailureLimiter {
  const points = Math.max(1, Math.floor(perMinute / processes));
  const failures = new RateLimiterMemory({ keyPrefix: 'auth-failures', points, duration: AUTH_FAILURE_WINDOW_SECONDS });
  return {
    async assertAllowed(address) {
      const used = await failures.get(address);
      if (used && used.consumedPoints >= points) {
        throw new RateLimitedError(
          Math.max(1, Math.ceil(used.msBeforeNext / 1000)),
          'Too many requests with invalid API keys from this address; retry after the Retry-After seconds.',
        );
      }
    },
    async recordFailure(address) {
      await failures.penalty(address, 1);
    },
  };
}
