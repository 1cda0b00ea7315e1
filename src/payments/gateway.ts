/**
 * The port every payment processor adapter implements whole (docs/architecture.md, "Payment
 * processors"). It says nothing of any one processor: the billing code charges, refunds and asks what
 * became of a request, and an adapter turns that into its processor's calls and its answers into
 * these results.
 *
 * Every call takes an idempotency key: the same key answers the first result again and never moves
 * money twice, so callers derive keys from what they are doing (invoice + attempt) and may call again
 * after a crash, a timeout or an `unknown` answer. A processor whose own keys expire (Stripe keeps them
 * 24 hours) must still answer the first result for a key, through `retrieveCharge`/`retrieveRefund`.
 */

/** The stored payment method charged: the adapter reads what else it needs of it by id. */
export interface GatewayPaymentMethod {
  /** The service's id: the processor's own (`pm_...`) for an adapter whose methods are the processor's. */
  id: string;
  accountId: string;
  /** `card` or `us_bank_account`. */
  type: string;
  /** The service's customer the method is attached to (an adapter maps it to its processor's customer). */
  customerId: string | null;
}

export interface ChargeRequest {
  /** Positive integer cents, at most MAX_CHARGE_AMOUNT (src/lib/money.ts). */
  amount: number;
  /** ISO 4217, lower case, as the API takes it. */
  currency: string;
  paymentMethod: GatewayPaymentMethod;
  idempotencyKey: string;
  description?: string;
  /** What the charge is for (`invoice_id`, `payment_plan_id`), kept by the processor beside the charge. */
  metadata?: Record<string, string>;
}

/**
 * What became of a charge. `pending` and `requires_action` settle later (a processor's report, or a
 * `retrieveCharge`); `unknown` is an answer that was lost (a timeout after the request was sent): the
 * money may have moved, so it is never read as failed, and it is finished under the same key, never a
 * new one. `failureCode` is the service's code (`card_declined`, `insufficient_funds`, `expired_card`,
 * an ACH return as `bank_return_R01`...; docs/decisions.md §5), `declineCode` the issuer's when the
 * processor gives one; `retryable` says whether charging again later may succeed.
 */
export type ChargeResult =
  | { status: 'succeeded'; chargeId: string }
  | {
      status: 'failed';
      chargeId: string;
      failureCode: string;
      declineCode?: string;
      failureMessage: string;
      retryable: boolean;
    }
  | { status: 'pending'; chargeId: string }
  | { status: 'requires_action'; chargeId: string; actionUrl?: string }
  | { status: 'unknown'; reason: string };

export interface RefundRequest {
  /** The `chargeId` of the succeeded charge refunded. */
  chargeId: string;
  /** Positive integer cents, at most what is left of the charge. */
  amount: number;
  idempotencyKey: string;
  metadata?: Record<string, string>;
}

export type RefundResult =
  | { status: 'succeeded'; refundId: string }
  | { status: 'failed'; refundId: string; failureCode: string; failureMessage: string }
  | { status: 'pending'; refundId: string }
  | { status: 'unknown'; reason: string };

export interface RetrieveChargeRequest {
  idempotencyKey: string;
  /** The processor's id when an earlier answer gave one. */
  chargeId?: string;
  /**
   * The method the charge was sent to, and when its attempt was opened (the charge was sent after that), when
   * the caller has them: a processor may find the charge among that customer's recent charges, which can be
   * read at once, rather than by a search that lags its writes (Stripe's, docs/decisions.md §41).
   */
  sentTo?: { paymentMethod: GatewayPaymentMethod; openedAt: Date };
}

export interface RetrieveRefundRequest {
  idempotencyKey: string;
  refundId?: string;
}

export interface PaymentGateway {
  charge(request: ChargeRequest): Promise<ChargeResult>;
  refund(request: RefundRequest): Promise<RefundResult>;
  /**
   * What the processor did with the charge under this key: its result now (`pending` until it settles),
   * or null when the processor never received it, so that charging again under the same key is safe.
   * Reconciliation asks this of every entry left `unknown` (never answers `unknown` itself: a processor
   * that cannot be asked throws GatewayUnavailableError and is asked again later).
   */
  retrieveCharge(request: RetrieveChargeRequest): Promise<ChargeResult | null>;
  /** The same for a refund. */
  retrieveRefund(request: RetrieveRefundRequest): Promise<RefundResult | null>;
  /**
   * Only for a processor whose customers authenticate on the service's own page (the simulator): the customer
   * authenticated the charge answered `requires_action` under this key; answers what became of it (null: no
   * such charge). A processor with its own authentication page (Stripe's `next_action`) has no such call.
   */
  confirmAction?(request: RetrieveChargeRequest): Promise<ChargeResult | null>;
  /**
   * Only for a processor that keeps the payment methods itself (Stripe): the method the customer's browser
   * made with the processor's own element (card numbers never reach this service) attached to the customer
   * there, and what it shows. A processor that has this method refuses raw numbers in POST /payment-methods.
   */
  importPaymentMethod?(request: ImportPaymentMethodRequest): Promise<ProcessorPaymentMethod>;
  /** With importPaymentMethod: the method detached at the processor too, never to be charged there again. */
  detachPaymentMethod?(paymentMethodId: string): Promise<void>;
}

export interface ImportPaymentMethodRequest {
  /** The processor's id the client was given (`pm_...`; a test id such as `pm_card_visa` answers a new one). */
  paymentMethodId: string;
  /** The service's customer it is attached to. */
  customerId: string;
}

/** What the service keeps of a processor's payment method: its id and what it shows, never a number. */
export interface ProcessorPaymentMethod {
  id: string;
  type: 'card' | 'us_bank_account';
  livemode: boolean;
  /** The processor's fingerprint of the card or account (same number, same fingerprint). */
  fingerprint: string | null;
  last4: string;
  /** The name the customer gave the processor's element, if any. */
  billingName: string | null;
  card: { brand: string; expMonth: number; expYear: number; wallet: string | null } | null;
  bank: {
    bankName: string | null;
    routingNumber: string | null;
    holderType: string | null;
    accountType: string | null;
  } | null;
}

/**
 * The processor refused the call itself (a reused key with another request, an unknown charge, a refund
 * above what is left, a key it no longer takes): a programming, state or configuration error, not a decline.
 * `final`: it refused this very request for what it says (a parameter, an object it does not know), so nothing
 * moved under its key and the same request is refused again; otherwise (the account's key refused, a key in use
 * by a concurrent request) what an earlier send under the key did is not known, and the entry stays in flight
 * (docs/decisions.md §45).
 */
export class GatewayRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly final = true,
  ) {
    super(message);
  }
}

/**
 * The processor could not take the call (an outage, a refused connection, its 5xx before it accepted
 * the request, a rate limit): nothing happened there, so the same call may be made again under the same
 * key. A call whose request may have reached the processor answers `unknown` instead of throwing this.
 */
export class GatewayUnavailableError extends Error {
  readonly retryable = true;
  constructor(
    readonly processor: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a processor reports on its own (a webhook, a settlement timer): the later outcome of a charge or
 * refund it answered `pending`, `requires_action` or `unknown` for. The adapter's webhook endpoint turns its
 * processor's events into these, and the charge protocol records them as the entry's outcome through its
 * owner's recorder (`recordProcessorReport`, src/use-cases/payment-reconciliation.ts).
 */
export type ProcessorReport =
  | { kind: 'charge'; accountId: string; idempotencyKey: string; result: ChargeResult }
  | { kind: 'refund'; accountId: string; idempotencyKey: string; result: RefundResult }
  | { kind: 'dispute'; accountId: string; dispute: ProcessorDispute };

/**
 * A customer's dispute of a charge, as the processor's latest event says it (docs/decisions.md §44): found by the
 * charge's id the charge result answered (`chargeId`, the payment's gateway reference).
 */
export interface ProcessorDispute {
  /** The processor's id of the dispute. */
  id: string;
  chargeId: string;
  /** Integer cents disputed, in the charge's currency. */
  amount: number;
  currency: string;
  /** Stripe's dispute statuses (needs_response, under_review, won, lost, warning_*...), the port's names for them. */
  status: string;
  reason: string | null;
  /** When the processor opened it. */
  created: Date;
}
