/**
 * The payment gateway seen by the billing code. Both calls take an idempotency key: the same key
 * answers the first result again and never moves money twice, so callers derive keys from what they
 * are doing (invoice + attempt) and may retry freely after a crash or timeout.
 */
export interface GatewayPaymentMethod {
  id: string;
  accountId: string;
  type: string;
  /** Simulator only: the verdict stored for test numbers (the number itself is never kept). */
  testBehavior: string;
  /** Detached from its customer: a processor refuses to charge it (decisions.md §5). */
  detached: boolean;
  /** A card's expiry (valid through that month, UTC); null for a bank account. */
  expMonth: number | null;
  expYear: number | null;
}

export interface ChargeRequest {
  amount: number;
  currency: string;
  paymentMethod: GatewayPaymentMethod;
  idempotencyKey: string;
  description?: string;
}

export type ChargeResult =
  | { status: 'succeeded'; chargeId: string; amount: number; currency: string }
  | {
      status: 'failed';
      chargeId: string;
      amount: number;
      currency: string;
      failureCode: string;
      failureMessage: string;
      retryable: boolean;
    };

export interface RefundRequest {
  chargeId: string;
  amount: number;
  idempotencyKey: string;
}

export type RefundResult =
  | { status: 'succeeded'; refundId: string; chargeId: string; amount: number }
  | {
      status: 'failed';
      refundId: string;
      chargeId: string;
      amount: number;
      failureCode: string;
      failureMessage: string;
    };

export interface PaymentGateway {
  charge(request: ChargeRequest): Promise<ChargeResult>;
  refund(request: RefundRequest): Promise<RefundResult>;
}

/** The gateway refused the call itself (bad key reuse, unknown charge): a programming or state error, not a decline. */
export class GatewayRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
