import { RateLimiterMemory } from 'rate-limiter-flexible';
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

/** A fixed window's count: what rate-limiter-flexible's memory store keeps per key (its `Record`). */
interface WindowCount {
  consumed: number;
  expiresAt: number;
}

/**
 * One fixed window per key, counted as rate-limiter-flexible's RateLimiterMemory counts (its `incrby`): the first
 * request opens a window of `durationMs`, each one in it adds one, and a request past `points` is refused until the
 * window ends. Answers how many ms the key's window has left when the request is refused, -1 when it passes.
 */
function fixedWindows(points: number, durationMs: number) {
  const windows = new Map<string, WindowCount>();
  let sweepAt = 1_000;
  return (key: string, now: number): number => {
    let window = windows.get(key);
    if (!window || window.expiresAt <= now) {
      // Ended windows are dropped when the map has grown (rate-limiter-flexible drops each with a timer of its own).
      if (!window && windows.size >= sweepAt) {
        for (const [other, count] of windows) if (count.expiresAt <= now) windows.delete(other);
        sweepAt = Math.max(1_000, windows.size * 2);
      }
      window = { consumed: 0, expiresAt: now + durationMs };
      windows.set(key, window);
    }
    window.consumed += 1;
    return window.consumed > points ? window.expiresAt - now : -1;
  };
}

/**
 * Per-API-key limit (docs/api.md "Rate limits"), as rate-limiter-flexible's BurstyRateLimiter counted it: a steady
 * window of one second, and past it a burst window of BURST_WINDOW_SECONDS; refused when both are spent, with
 * Retry-After from the sooner of the two. State is in this process's memory; with API_PROCESSES=N each process
 * allows 1/N (node:cluster spreads connections round-robin), so no shared store is queried per request. Synchronous:
 * the library's promises (three a request) were a few percent of a read's CPU (docs/performance.md, "Reads, third
 * pass"); it throws RateLimitedError.
 */
export function createRateLimitCheck(settings: RateLimitSettings): (keyId: string) => void {
  const share = (points: number) => Math.max(1, Math.floor(points / settings.processes));
  const steady = fixedWindows(share(settings.perSecond), 1000);
  const burst = fixedWindows(share(settings.burst), BURST_WINDOW_SECONDS * 1000);
  return (keyId) => {
    const now = Date.now();
    const steadyWait = steady(keyId, now);
    if (steadyWait < 0) return;
    const burstWait = burst(keyId, now);
    if (burstWait < 0) return;
    throw new RateLimitedError(Math.max(1, Math.ceil(Math.min(steadyWait, burstWait) / 1000)));
  };
}

/** createRateLimitCheck's answer as a promise: resolved when the request may go on, rejected with RateLimitedError. */
export function createRateLimiter(settings: RateLimitSettings): (keyId: string) => Promise<void> {
  const check = createRateLimitCheck(settings);
  return async (keyId) => check(keyId);
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
