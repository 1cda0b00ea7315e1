import type { PaymentMethod, Transaction } from '../generated/prisma/client';
import { ApiError } from '../http/errors';
import type { LedgerOutcome } from '../transactions';
import { GatewayRequestError, type PaymentGateway } from './gateway';
import { toGatewayPaymentMethod } from './payment-method.service';

/**
 * One call to the gateway for a pending ledger entry, under the entry's own gateway key (a repeat
 * answers the first result and never moves money twice), turned into the entry's outcome. A gateway
 * that does not answer is a 502 whose message, given by the caller, says how the entry gets finished;
 * a refusal of the call itself (GatewayRequestError) is passed on as it is.
 */
async function atGateway<T>(call: () => Promise<T>, unavailable: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof GatewayRequestError) throw error;
    throw new ApiError(
      'api_error',
      'gateway_unavailable',
      `The payment gateway did not answer. ${unavailable}`,
      undefined,
      502,
    );
  }
}

export async function chargeEntry(
  gateway: PaymentGateway,
  entry: Transaction,
  method: PaymentMethod,
  unavailable: string,
): Promise<LedgerOutcome> {
  const result = await atGateway(
    () =>
      gateway.charge({
        amount: Number(entry.amount),
        currency: entry.currency,
        paymentMethod: toGatewayPaymentMethod(method),
        idempotencyKey: entry.gatewayKey!,
        description: entry.description ?? undefined,
      }),
    unavailable,
  );
  return result.status === 'succeeded'
    ? { status: 'succeeded', gatewayReference: result.chargeId }
    : {
        status: 'failed',
        gatewayReference: result.chargeId,
        failureCode: result.failureCode,
        failureMessage: result.failureMessage,
      };
}

/** Refunds `-refund.amount` cents of the charge behind `source` (the payment entry refunded). */
export async function refundEntry(
  gateway: PaymentGateway,
  refund: Transaction,
  source: Transaction,
  unavailable: string,
): Promise<LedgerOutcome> {
  const result = await atGateway(
    () =>
      gateway.refund({
        chargeId: source.gatewayReference!,
        amount: Number(-refund.amount),
        idempotencyKey: refund.gatewayKey!,
      }),
    unavailable,
  );
  return result.status === 'succeeded'
    ? { status: 'succeeded', gatewayReference: result.refundId }
    : {
        status: 'failed',
        gatewayReference: result.refundId,
        failureCode: result.failureCode,
        failureMessage: result.failureMessage,
      };
}
