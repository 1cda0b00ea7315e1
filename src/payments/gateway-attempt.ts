import type { PaymentMethod, Transaction } from '../generated/prisma/client';
import { ApiError } from '../http/errors';
import type { LedgerOutcome, SettledOutcome } from '../transactions';
import { GatewayRequestError, type ChargeResult, type RefundResult } from './gateway';
import type { Gateways } from './gateways';
import { toGatewayPaymentMethod } from './payment-method.service';

/**
 * The processor's side of the charge protocol (docs/architecture.md, "Payment processors"): one call for
 * a ledger entry opened in flight, under the entry's own gateway key (a repeat answers the first result
 * and never moves money twice), turned into the entry's outcome. A processor that cannot take the call
 * (GatewayUnavailableError) or throws is a 502 whose message, given by the caller, says how the entry
 * gets finished; a refusal of the call itself (GatewayRequestError) is passed on as it is.
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

/** The ledger's outcome of what the processor said of a charge (docs/decisions.md §40). */
export function chargeOutcome(result: ChargeResult): LedgerOutcome {
  switch (result.status) {
    case 'succeeded':
      return { status: 'succeeded', gatewayReference: result.chargeId };
    case 'failed':
      return {
        status: 'failed',
        gatewayReference: result.chargeId,
        failureCode: result.failureCode,
        failureMessage: result.failureMessage,
      };
    // The customer authenticating is a charge still in flight at the processor, as a bank debit is.
    case 'pending':
    case 'requires_action':
      return { status: 'pending', gatewayReference: result.chargeId };
    case 'unknown':
      return { status: 'unknown', gatewayReference: null };
  }
}

/**
 * Charges `entry` (or finds what became of it) and answers its outcome, in flight included. An entry sent
 * before (its outcome `unknown`, or `pending` with the processor's reference) is asked about first under
 * its key; one the processor never received is charged under that same key, never a new one.
 */
export async function collectEntry(
  gateways: Gateways,
  entry: Transaction,
  method: PaymentMethod,
  unavailable: string,
): Promise<LedgerOutcome> {
  const gateway = await gateways.gatewayFor(entry.accountId);
  const idempotencyKey = entry.gatewayKey!;
  const result = await atGateway(async () => {
    if (entry.status === 'unknown' || entry.gatewayReference !== null) {
      const found = await gateway.retrieveCharge({ idempotencyKey, chargeId: entry.gatewayReference ?? undefined });
      if (found) return found;
    }
    return gateway.charge({
      amount: Number(entry.amount),
      currency: entry.currency,
      paymentMethod: toGatewayPaymentMethod(method),
      idempotencyKey,
      description: entry.description ?? undefined,
      metadata: entry.invoiceId ? { invoice_id: entry.invoiceId } : undefined,
    });
  }, unavailable);
  return chargeOutcome(result);
}

/**
 * collectEntry for a caller that records settled outcomes only (payment plans): an outcome still in flight
 * leaves the entry pending, as an answer that never came does, and is a 502 saying how it gets finished.
 */
export async function chargeEntry(
  gateways: Gateways,
  entry: Transaction,
  method: PaymentMethod,
  unavailable: string,
): Promise<SettledOutcome> {
  const outcome = await collectEntry(gateways, entry, method, unavailable);
  if (outcome.status === 'pending' || outcome.status === 'unknown') throw gatewayUnavailable(unavailable);
  return outcome;
}

function refundOutcome(result: RefundResult, unavailable: string): SettledOutcome {
  switch (result.status) {
    case 'succeeded':
      return { status: 'succeeded', gatewayReference: result.refundId };
    case 'failed':
      return {
        status: 'failed',
        gatewayReference: result.refundId,
        failureCode: result.failureCode,
        failureMessage: result.failureMessage,
      };
    // Refunds record settled outcomes only: one in flight stays pending and asking again completes it.
    case 'pending':
    case 'unknown':
      throw gatewayUnavailable(unavailable);
  }
}

/** Refunds `-refund.amount` cents of the charge behind `source` (the payment entry refunded). */
export async function refundEntry(
  gateways: Gateways,
  refund: Transaction,
  source: Transaction,
  unavailable: string,
): Promise<SettledOutcome> {
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
  return refundOutcome(result, unavailable);
}
