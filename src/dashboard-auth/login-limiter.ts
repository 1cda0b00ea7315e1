import { RateLimiterMemory } from 'rate-limiter-flexible';
import { RateLimitedError } from '../http/errors';

/** Seconds over which failed sign-ins are counted. */
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;

export interface LoginLimits {
  /** Failed sign-ins per email (whoever tries) within the window. */
  perEmail: number;
  /** Failed sign-ins per client address (whatever the email) within the window. */
  perAddress: number;
}

/**
 * Password guessing is slowed twice (docs/api.md "Dashboard sessions"): per email, so one account
 * cannot be guessed at from many addresses, and per client address, so one address cannot try a
 * password on many emails. Past either limit the sign-in is 429 before the password is checked, until
 * the window passes; a successful sign-in clears its email's count. Per API process, like the key limit.
 */
export function createLoginLimiter(
  limits: LoginLimits,
  processes = 1,
  refusal = 'Too many failed sign-ins; retry after the Retry-After seconds.',
) {
  const share = (points: number) => Math.max(1, Math.floor(points / processes));
  const byEmail = new RateLimiterMemory({
    keyPrefix: 'login-email',
    points: share(limits.perEmail),
    duration: LOGIN_FAILURE_WINDOW_SECONDS,
  });
  const byAddress = new RateLimiterMemory({
    keyPrefix: 'login-address',
    points: share(limits.perAddress),
    duration: LOGIN_FAILURE_WINDOW_SECONDS,
  });
  const refuseIfSpent = async (limiter: RateLimiterMemory, key: string) => {
    const used = await limiter.get(key);
    if (used && used.consumedPoints >= limiter.points) {
      throw new RateLimitedError(Math.max(1, Math.ceil(used.msBeforeNext / 1000)), refusal);
    }
  };
  return {
    async assertAllowed(email: string, address: string): Promise<void> {
      await refuseIfSpent(byAddress, address);
      await refuseIfSpent(byEmail, email);
    },
    async recordFailure(email: string, address: string): Promise<void> {
      await Promise.all([byEmail.penalty(email, 1), byAddress.penalty(address, 1)]);
    },
    async recordSuccess(email: string): Promise<void> {
      await byEmail.delete(email);
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
