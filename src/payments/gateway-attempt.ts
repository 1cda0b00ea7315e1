import type { PaymentMethod, Transaction } from '../generated/prisma/client';
import { ApiError } from '../http/errors';
import type { LedgerOutcome } from '../transactions';
import { GatewayRequestError, type ChargeResult, type RefundResult } from './gateway';
import type { Gateways } from './gateways';
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
    throw gatewayUnavailable(unavailable);
  }
}

function gatewayUnavailable(unavailable: string): ApiError {
  return new ApiError(
    'api_error',
    'gateway_unavailable',
    `The payment gateway did not answer. ${unavailable}`,
    undefined,
    502,
  );
}

export async function chargeEntry(
  gateways: Gateways,
  entry: Transaction,
  method: PaymentMethod,
  unavailable: string,
): Promise<LedgerOutcome> {
  const gateway = await gateways.gatewayFor(entry.accountId);
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
  return settledOutcome(result, (settled) => ('chargeId' in settled ? settled.chargeId : ''), unavailable);
}

/**
 * A result the ledger records today: succeeded or failed. An answer lost (`unknown`) leaves the entry
 * pending, to be finished under its key as a gateway that did not answer; `pending` and
 * `requires_action` are not answered by the simulated gateway yet.
 */
function settledOutcome<R extends ChargeResult | RefundResult>(
  result: R,
  reference: (settled: R) => string,
  unavailable: string,
): LedgerOutcome {
  if (result.status === 'succeeded') return { status: 'succeeded', gatewayReference: reference(result) };
  if (result.status === 'failed') {
    const failed = result as Extract<R, { status: 'failed' }>;
    return {
      status: 'failed',
      gatewayReference: reference(result),
      failureCode: failed.failureCode,
      failureMessage: failed.failureMessage,
    };
  }
  throw gatewayUnavailable(unavailable);
}

/** Refunds `-refund.amount` cents of the charge behind `source` (the payment entry refunded). */
export async function refundEntry(
  gateways: Gateways,
  refund: Transaction,
  source: Transaction,
  unavailable: string,
): Promise<LedgerOutcome> {
  const gateway = await gateways.gatewayFor(refund.accountId);
  const result = await atGateway(
    () =>
      gateway.refund({
        chargeId: source.gatewayReference!,
        amount: Number(-refund.amount),
        idempotencyKey: refund.gatewayKey!,
      }),
    unavailable,
  );
  return settledOutcome(result, (settled) => ('refundId' in settled ? settled.refundId : ''), unavailable);
}
