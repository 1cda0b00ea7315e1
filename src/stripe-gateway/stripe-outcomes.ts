import type Stripe from 'stripe';
import type { ChargeResult, RefundResult } from '../payments';

/**
 * How Stripe's answers become the port's results (the table is docs/decisions.md "Stripe's answers as the port's results" and docs/api.md
 * "Payment processors"). Pure: the adapter calls Stripe, these read what it said.
 */

/**
 * Stripe's decline codes after which charging the same card again later may succeed ("soft" declines,
 * stripe.com/docs/declines/codes: "the customer should try again" / "try again later"). Every other
 * decline needs the customer to act (another card, a call to the bank): not retryable.
 */
const RETRYABLE_DECLINES = new Set([
  'approve_with_id',
  'card_velocity_exceeded',
  'generic_decline',
  'do_not_honor',
  'insufficient_funds',
  'issuer_not_available',
  'processing_error',
  'reenter_transaction',
  'try_again_later',
  'withdrawal_count_limit_exceeded',
]);

/** The service's failure codes (docs/decisions.md §5) for Stripe's codes; the rest are `card_declined`. */
const FAILURE_CODE_OF: Record<string, string> = {
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_card',
  processing_error: 'processing_error',
  incorrect_cvc: 'incorrect_cvc',
  incorrect_number: 'incorrect_number',
  authentication_required: 'authentication_required',
};

export interface StripeDecline {
  code?: string;
  decline_code?: string;
  advice_code?: string;
  message?: string;
}

/**
 * A decline as the port says it. Stripe's `advice_code` wins when given (`try_again_later`: retryable;
 * `do_not_try_again`, `confirm_card_data`: not); else the decline code's class above.
 */
export function declineResult(chargeId: string, decline: StripeDecline): ChargeResult {
  const declineCode = decline.decline_code ?? undefined;
  const code = decline.code ?? 'card_declined';
  const retryable =
    decline.advice_code !== undefined
      ? decline.advice_code === 'try_again_later'
      : RETRYABLE_DECLINES.has(declineCode ?? code);
  return {
    status: 'failed',
    chargeId,
    failureCode: FAILURE_CODE_OF[declineCode ?? ''] ?? FAILURE_CODE_OF[code] ?? 'card_declined',
    ...(declineCode ? { declineCode } : {}),
    failureMessage: decline.message ?? 'The card was declined.',
    retryable,
  };
}

/**
 * Stripe's ACH failure codes (a us_bank_account PaymentIntent's `last_payment_error.code`, its charge's
 * `failure_code`) that name one Nacha return, as the service's codes the simulator uses too (docs/decisions.md
 * §40: `bank_return_R01`...). Stripe folds several returns into its other codes (`debit_not_authorized` is R05,
 * R07, R10, R29 or R51): those are the generic `bank_return`, Stripe's code kept as the decline code.
 */
const BANK_RETURN_OF: Record<string, string> = {
  insufficient_funds: 'bank_return_R01',
  account_closed: 'bank_return_R02',
  no_account: 'bank_return_R03',
  invalid_account_number: 'bank_return_R04',
  account_frozen: 'bank_return_R16',
};

/**
 * A failed bank debit: the bank returned it (or Stripe refused to send it), so charging the same account again
 * fails again until the customer acts: never retryable.
 */
export function bankDebitFailureResult(chargeId: string, failure: StripeDecline | null | undefined): ChargeResult {
  // The client gives an error's missing codes as empty strings: neither names a return.
  const stripeCode = failure?.decline_code || failure?.code || undefined;
  return {
    status: 'failed',
    chargeId,
    failureCode: (stripeCode ? BANK_RETURN_OF[stripeCode] : undefined) ?? 'bank_return',
    ...(stripeCode ? { declineCode: stripeCode } : {}),
    failureMessage: failure?.message ?? 'The bank returned the debit.',
    retryable: false,
  };
}

/**
 * Whether the PaymentIntent debits a US bank account: its failed method says so, else it was made for that
 * method type alone (the adapter's bank debits are; a card's automatic methods may list it beside others).
 */
function isBankDebit(intent: Stripe.PaymentIntent): boolean {
  const failedMethod = intent.last_payment_error?.payment_method?.type;
  if (failedMethod) return failedMethod === 'us_bank_account';
  const types = intent.allowed_payment_method_types ?? intent.payment_method_types;
  return types?.length === 1 && types[0] === 'us_bank_account';
}

/** What Stripe says went wrong: the last error, else the failure of its latest charge when that was expanded. */
function lastFailureOf(intent: Stripe.PaymentIntent): StripeDecline | null {
  if (intent.last_payment_error) return intent.last_payment_error;
  const charge = intent.latest_charge;
  if (charge && typeof charge === 'object' && charge.failure_code)
    return { code: charge.failure_code, message: charge.failure_message ?? undefined };
  return null;
}

/** A PaymentIntent's status as a charge result; a status the service does not use is `unknown`, never failed. */
export function paymentIntentResult(intent: Stripe.PaymentIntent): ChargeResult {
  switch (intent.status) {
    case 'succeeded':
      return { status: 'succeeded', chargeId: intent.id };
    case 'processing':
      return { status: 'pending', chargeId: intent.id };
    case 'requires_action': {
      const redirect = intent.next_action?.redirect_to_url?.url;
      return { status: 'requires_action', chargeId: intent.id, ...(redirect ? { actionUrl: redirect } : {}) };
    }
    case 'requires_payment_method':
      // Confirmed and declined (or a debit returned): Stripe puts why in last_payment_error and waits for another method.
      if (isBankDebit(intent)) return bankDebitFailureResult(intent.id, lastFailureOf(intent));
      return declineResult(intent.id, intent.last_payment_error ?? { code: 'card_declined' });
    case 'canceled':
      return {
        status: 'failed',
        chargeId: intent.id,
        failureCode: 'payment_canceled',
        failureMessage: `The payment was canceled at Stripe (${intent.cancellation_reason ?? 'no reason given'}).`,
        retryable: false,
      };
    default:
      // requires_confirmation, requires_capture (the adapter confirms and captures at once) or a status
      // newer than this code: never read as failed.
      return { status: 'unknown', reason: `Stripe's PaymentIntent ${intent.id} is ${intent.status}` };
  }
}

/** A Stripe refund's status as a refund result. */
export function refundResult(refund: Stripe.Refund): RefundResult {
  switch (refund.status) {
    case 'succeeded':
      return { status: 'succeeded', refundId: refund.id };
    case 'pending':
    case 'requires_action':
      return { status: 'pending', refundId: refund.id };
    case 'failed':
    case 'canceled':
      return {
        status: 'failed',
        refundId: refund.id,
        failureCode: refund.failure_reason ?? `refund_${refund.status}`,
        failureMessage: `Stripe's refund ${refund.id} ${refund.status}${refund.failure_reason ? `: ${refund.failure_reason}` : ''}.`,
      };
    default:
      return { status: 'unknown', reason: `Stripe's refund ${refund.id} is ${String(refund.status)}` };
  }
}

/** Socket errors raised before a request could be sent: Stripe never received it. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * What an error of the Stripe client means for a write (docs/decisions.md, "Stripe's answers as the port's results"):
 * - `unavailable`: nothing happened at Stripe (no connection, 429 rate limit, a lock timeout, 503): the
 *   same call may be sent again;
 * - `unknown`: the request may have reached Stripe and its answer was lost (a timeout, a cut connection,
 *   a 500, 502 or 504, which Stripe says may or may not have been processed): finished by asking, under
 *   the same key;
 * - `declined`: a card error (402), the decline in it;
 * - `refused`: Stripe refused the call itself (400 invalid request, 401/403 key, 404, 409 idempotency).
 */
export type StripeErrorKind =
  | { kind: 'unavailable'; message: string }
  | { kind: 'unknown'; message: string }
  | { kind: 'declined'; decline: StripeDecline; paymentIntentId?: string; chargeId?: string }
  /** `final`: a 400 or 404 about the request itself (docs/decisions.md §45); a key refused (401, 403) or an idempotency conflict is not. */
  | { kind: 'refused'; code: string; message: string; final: boolean };

interface StripeLikeError {
  type?: string;
  statusCode?: number;
  code?: string;
  decline_code?: string;
  advice_code?: string;
  message: string;
  detail?: unknown;
  payment_intent?: { id: string };
  charge?: string;
}

export function classifyStripeError(error: StripeLikeError): StripeErrorKind {
  const message = error.message;
  if (error.type === 'StripeConnectionError') {
    const cause = (error.detail as { code?: string } | undefined)?.code;
    return cause && NOT_SENT.has(cause) ? { kind: 'unavailable', message } : { kind: 'unknown', message };
  }
  if (error.type === 'StripeRateLimitError' || error.code === 'lock_timeout' || error.statusCode === 503)
    return { kind: 'unavailable', message };
  if (error.statusCode === undefined || error.statusCode >= 500) return { kind: 'unknown', message };
  if (error.type === 'StripeCardError') {
    return {
      kind: 'declined',
      decline: { code: error.code, decline_code: error.decline_code, advice_code: error.advice_code, message },
      paymentIntentId: error.payment_intent?.id,
      chargeId: error.charge,
    };
  }
  const code = error.code ?? `stripe_${error.statusCode}`;
  if (error.statusCode === 401 || error.statusCode === 403)
    // Stripe's message of a refused key quotes part of it (stripe-mock's the whole header): never passed on.
    return {
      kind: 'refused',
      code,
      message: `Stripe refused the account's secret key (HTTP ${error.statusCode}).`,
      final: false,
    };
  const final = (error.statusCode === 400 || error.statusCode === 404) && error.type !== 'StripeIdempotencyError';
  return { kind: 'refused', code, message, final };
}
