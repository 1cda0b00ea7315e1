import Stripe from 'stripe';
import { config } from '../config';

/**
 * The official `stripe` client for one secret key, aimed at STRIPE_API_BASE (Stripe itself unless the
 * tests point it at stripe-mock or localstripe). Clients are kept per key and base: each holds its own
 * keep-alive agent, which a charge path making a new client per call would lose.
 */
const clients = new Map<string, Stripe>();
const MAX_CLIENTS = 500;

/** How long one call to Stripe may take before its outcome counts as unknown (docs/api.md, "Payment processors"). */
export const STRIPE_TIMEOUT_MS = 30_000;

export function stripeClient(secretKey: string): Stripe {
  const base = config.stripeApiBase;
  const cacheKey = `${base.origin}\n${secretKey}`;
  let client = clients.get(cacheKey);
  if (!client) {
    if (clients.size >= MAX_CLIENTS) clients.delete(clients.keys().next().value!);
    client = new Stripe(secretKey, {
      host: base.hostname,
      port: base.port || (base.protocol === 'http:' ? 80 : 443),
      protocol: base.protocol === 'http:' ? 'http' : 'https',
      // No retries of its own: a refused connection then means Stripe never saw the request (unavailable)
      // and a lost answer means it may have (unknown), which retries would blur; the charge protocol sends
      // the same key again or asks (docs/decisions.md, "Stripe's answers as the port's results").
      maxNetworkRetries: 0,
      timeout: STRIPE_TIMEOUT_MS,
      telemetry: false,
    });
    clients.set(cacheKey, client);
  }
  return client;
}

/** What Stripe said of an error: its answer's HTTP status, none when no answer came (a timeout, a cut connection). */
export function stripeErrorStatus(error: unknown): number | undefined {
  return error instanceof Stripe.errors.StripeError ? error.statusCode : undefined;
}

/**
 * Stripe did not answer, or answered that it cannot now (5xx, 429 rate limit, a lock timeout): the same
 * call may succeed later. A refusal of the call itself (4xx) is not.
 */
export function stripeUnavailable(error: unknown): boolean {
  if (!(error instanceof Stripe.errors.StripeError)) return false;
  if (error instanceof Stripe.errors.StripeConnectionError) return true;
  if (error instanceof Stripe.errors.StripeRateLimitError) return true;
  if (error.code === 'lock_timeout') return true;
  return error.statusCode === undefined || error.statusCode >= 500;
}

export type KeyVerdict =
  | { status: 'accepted'; livemode: boolean }
  | { status: 'refused'; message: string }
  | { status: 'unavailable'; message: string };

/**
 * Whether Stripe accepts a secret key, asked with the smallest read any key may make (the balance):
 * refused (401/403, or any 4xx) is the key's fault; no answer or a 5xx is Stripe's and worth retrying.
 */
export async function verifyStripeSecretKey(secretKey: string): Promise<KeyVerdict> {
  try {
    const balance = await stripeClient(secretKey).balance.retrieve();
    return { status: 'accepted', livemode: balance.livemode };
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    if (stripeUnavailable(error)) return { status: 'unavailable', message: error.message };
    // Stripe's own message may quote the key (stripe-mock echoes the Authorization header): only its status and code.
    return { status: 'refused', message: `HTTP ${error.statusCode ?? '?'}${error.code ? `, ${error.code}` : ''}` };
  }
}
