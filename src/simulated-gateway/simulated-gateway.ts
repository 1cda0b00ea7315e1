import type { Db } from '../db/prisma';
import type { GatewayCharge, PaymentMethod } from '../generated/prisma/client';
import {
  chargeById,
  chargeByKey,
  confirmCharge,
  settleDebit,
  insertCharge,
  insertRefund,
  lockCharge,
  refundedOf,
  readMethodTestClock,
  storedByKey,
} from './simulated-gateway.records';
import { readPaymentMethod } from '../payments';
import { runTransaction } from '../db/sql-transaction';
import { newId } from '../lib/ids';
import { MAX_CHARGE_AMOUNT } from '../lib/money';
import {
  GatewayRequestError,
  type ChargeRequest,
  type ChargeResult,
  type PaymentGateway,
  type RefundRequest,
  type RefundResult,
  type RetrieveChargeRequest,
  type RetrieveRefundRequest,
} from '../payments';
import { BANK_RETURNS, FAILURES, TEST_BEHAVIORS, type TestBehavior } from './test-numbers';
import { paysCurrency } from '../payments';
import { currentTime } from '../lib/clock-time';
import type { GatewayFactory, GatewayTemporal, ProcessorReport } from '../payments';
import { ensureSettlementTimer } from './bank-debit-timer';

function isTestBehavior(value: string): value is TestBehavior {
  return (TEST_BEHAVIORS as readonly string[]).includes(value);
}

function assertPositiveCents(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new GatewayRequestError('amount_invalid', `amount must be a positive integer number of cents, got ${amount}`);
  }
  // The last line of defence: no single charge or refund moves more than the service's ceiling.
  if (amount > MAX_CHARGE_AMOUNT) {
    throw new GatewayRequestError(
      'amount_too_large',
      `amount must be at most ${MAX_CHARGE_AMOUNT} cents, got ${amount}`,
    );
  }
}

/** A key answers the request it was first sent with only: another request under it is refused. */
function assertSameRequest(same: boolean, idempotencyKey: string): void {
  if (!same)
    throw new GatewayRequestError(
      'idempotency_key_reused',
      `Idempotency key ${idempotencyKey} was used for a different request.`,
    );
}

function toChargeResult(row: GatewayCharge): ChargeResult {
  if (row.status === 'succeeded') return { status: 'succeeded', chargeId: row.id };
  // The simulator's authentication is a button on the hosted invoice page, which the customer's email links to.
  if (row.status === 'requires_action') return { status: 'requires_action', chargeId: row.id };
  // A bank debit the bank has not answered yet; what it will answer is kept beside it (bankVerdictOf).
  if (row.status === 'pending') return { status: 'pending', chargeId: row.id };
  return {
    status: 'failed',
    chargeId: row.id,
    failureCode: row.failureCode!,
    failureMessage: row.failureMessage!,
    retryable: row.retryable,
  };
}

function toRefundResult(row: GatewayCharge): RefundResult {
  if (row.status === 'succeeded') return { status: 'succeeded', refundId: row.id };
  return { status: 'failed', refundId: row.id, failureCode: row.failureCode!, failureMessage: row.failureMessage! };
}

interface Failure {
  code: string;
  message: string;
  retryable: boolean;
}

/** The outcome a test number asks for (decisions.md §5), or null when it succeeds. */
function testFailureOf(method: PaymentMethod): Failure | null {
  const behavior = isTestBehavior(method.testBehavior) ? method.testBehavior : 'card_declined';
  if (behavior === 'succeeds' || behavior === 'requires_action') return null;
  const failure = FAILURES[behavior];
  return {
    code: behavior,
    message: method.type === 'card' ? failure.card : failure.bank,
    retryable: failure.retryable,
  };
}

/**
 * What the bank answers a debit it accepted, days later (docs/decisions.md §40): a failing test account's ACH
 * return (`bank_return_R01`...), not retryable (the customer must give another account), or null: it pays.
 */
function bankVerdictOf(method: PaymentMethod): Failure | null {
  const bankReturn = isTestBehavior(method.testBehavior) ? BANK_RETURNS[method.testBehavior] : undefined;
  return bankReturn ? { code: bankReturn.code, message: bankReturn.message, retryable: false } : null;
}

/** Whether the charge is a bank debit the bank answers later (a US bank account's, not refused up front). */
function isBankDebit(method: PaymentMethod, refusal: Failure | null): boolean {
  return method.type === 'us_bank_account' && refusal === null;
}

/**
 * What any processor declines whatever the number (decisions.md §5): a detached method, which is never
 * charged again, a card past its expiry (`expired_card`), and a currency the method cannot pay. The
 * billing code refuses the first and the last before the gateway (this is the last line of defence);
 * an expiry passes while a card is on file, so only the charge can find it.
 */
function refusalOf(request: ChargeRequest, paymentMethod: PaymentMethod): Failure | null {
  if (paymentMethod.detachedAt !== null) {
    return {
      code: 'payment_method_detached',
      message: 'The payment method was detached and cannot be charged again.',
      retryable: false,
    };
  }
  // A card is valid through its expiry month, judged at the service's time: a test clock's when the
  // charge is made for a customer on one (src/lib/clock-time.ts), the wall clock's otherwise.
  if (
    paymentMethod.cardExpYear !== null &&
    paymentMethod.cardExpMonth !== null &&
    currentTime().getTime() >= Date.UTC(paymentMethod.cardExpYear, paymentMethod.cardExpMonth, 1)
  ) {
    return { code: 'expired_card', message: 'Your card has expired.', retryable: false };
  }
  if (!paysCurrency(paymentMethod.type, request.currency)) {
    return {
      code: 'currency_not_supported',
      message: `A US bank account cannot be debited in ${request.currency}; only USD.`,
      retryable: false,
    };
  }
  return null;
}

/**
 * A test-mode gateway that keeps its own ledger (gateway_charges). Outcomes come from the stored
 * test behaviour of the payment method. Each call inserts under its (account, idempotency key) with
 * ON CONFLICT DO NOTHING and answers whatever row holds the key, so concurrent or repeated calls with
 * one key charge at most once and all see the same result.
 */
export class SimulatedGateway implements PaymentGateway {
  constructor(
    private readonly prisma: Db,
    private readonly accountId: string,
    private readonly temporal?: GatewayTemporal,
  ) {}

  async charge(request: ChargeRequest): Promise<ChargeResult> {
    assertPositiveCents(request.amount);
    // The simulator's own verdict for the method (its test number's, kept when it was created), read by id.
    const paymentMethod = await readPaymentMethod(
      this.prisma,
      request.paymentMethod.accountId,
      request.paymentMethod.id,
    );
    if (!paymentMethod)
      throw new GatewayRequestError('payment_method_missing', `No such payment method: ${request.paymentMethod.id}`);
    const refusal = refusalOf(request, paymentMethod);
    const debit = isBankDebit(paymentMethod, refusal);
    // A debit is pending until its bank answers; the failure it will be answered with is stored with it.
    const failure = refusal ?? (debit ? bankVerdictOf(paymentMethod) : testFailureOf(paymentMethod));
    const inserted = await insertCharge(this.prisma, {
      id: newId('gatewayCharge'),
      accountId: paymentMethod.accountId,
      idempotencyKey: request.idempotencyKey,
      paymentMethodId: paymentMethod.id,
      amount: request.amount,
      currency: request.currency,
      status: debit
        ? 'pending'
        : failure
          ? 'failed'
          : paymentMethod.testBehavior === 'requires_action'
            ? 'requires_action'
            : 'succeeded',
      failureCode: failure?.code ?? null,
      failureMessage: failure?.message ?? null,
      retryable: failure?.retryable ?? false,
      description: request.description ?? null,
    });
    // Not inserted: the key holds a row already (a retry, or a concurrent call whose commit this statement waited for).
    const stored = inserted ?? (await this.stored(paymentMethod.accountId, request.idempotencyKey));
    assertSameRequest(
      stored.kind === 'charge' &&
        stored.paymentMethodId === paymentMethod.id &&
        Number(stored.amount) === request.amount,
      request.idempotencyKey,
    );
    // Made now: on a test clock, at the clock's time of the request or workflow step (src/lib/clock-time.ts).
    if (stored.status === 'pending') await this.settleLater(stored, currentTime().getTime());
    return toChargeResult(stored);
  }

  async refund(request: RefundRequest): Promise<RefundResult> {
    assertPositiveCents(request.amount);
    return runTransaction(this.prisma, async (tx) => {
      // The charge row is locked so that refunds under different keys cannot together exceed it.
      const charge = await lockCharge(tx, request.chargeId);
      if (!charge || charge.kind !== 'charge')
        throw new GatewayRequestError('charge_missing', `No such charge: ${request.chargeId}`);
      const existing = await chargeByKey(tx, charge.accountId, request.idempotencyKey);
      if (existing) {
        assertSameRequest(
          existing.kind === 'refund' && existing.chargeId === charge.id && Number(existing.amount) === request.amount,
          request.idempotencyKey,
        );
        return toRefundResult(existing);
      }
      if (charge.status !== 'succeeded')
        throw new GatewayRequestError('charge_not_refundable', `Charge ${charge.id} did not succeed.`);
      const remaining = Number(charge.amount) - (await refundedOf(tx, charge.id));
      if (request.amount > remaining) {
        throw new GatewayRequestError(
          'amount_too_large',
          `Refund of ${request.amount} exceeds the ${remaining} left on charge ${charge.id}.`,
        );
      }
      const row = await insertRefund(tx, {
        id: newId('gatewayRefund'),
        accountId: charge.accountId,
        idempotencyKey: request.idempotencyKey,
        chargeId: charge.id,
        amount: BigInt(request.amount),
        currency: charge.currency,
        status: 'succeeded',
      });
      return toRefundResult(row);
    });
  }

  /** The customer authenticated on the hosted invoice page: a charge waiting for it succeeds (once; a repeat answers it). */
  async confirmAction(request: RetrieveChargeRequest): Promise<ChargeResult | null> {
    const row =
      (await confirmCharge(this.prisma, this.accountId, request.idempotencyKey)) ??
      (await this.find(request.idempotencyKey));
    return row && row.kind === 'charge' ? toChargeResult(row) : null;
  }

  async retrieveCharge(request: RetrieveChargeRequest): Promise<ChargeResult | null> {
    const row = await this.find(request.idempotencyKey);
    if (!row || row.kind !== 'charge') return null;
    // A debit whose timer was never started (the process died after the insert) gets it when it is asked about.
    // Its time on a test clock is not kept: the clock's time now stands in for it.
    if (row.status === 'pending') await this.settleLater(row);
    return toChargeResult(row);
  }

  /**
   * Starts the debit's settlement timer; for a customer on a test clock, on the clock's time from `debitedAt`, so
   * that the clock's advance settles it (docs/decisions.md §40). The clock's time is the latest a debit of its can
   * have been made at (an advance's steps come before it): it stands in for a time not known or not the clock's.
   */
  private async settleLater(debit: GatewayCharge, debitedAt?: number): Promise<void> {
    const clock = debit.paymentMethodId ? await readMethodTestClock(this.prisma, debit.paymentMethodId) : null;
    return ensureSettlementTimer(this.temporal, {
      accountId: debit.accountId,
      chargeId: debit.id,
      ...(clock
        ? { testClock: { id: clock.id, time: Math.min(debitedAt ?? Infinity, clock.frozenTime.getTime()) } }
        : {}),
    });
  }

  async retrieveRefund(request: RetrieveRefundRequest): Promise<RefundResult | null> {
    const row = await this.find(request.idempotencyKey);
    return row && row.kind === 'refund' ? toRefundResult(row) : null;
  }

  private find(idempotencyKey: string): Promise<GatewayCharge | null> {
    return chargeByKey(this.prisma, this.accountId, idempotencyKey);
  }

  private async stored(accountId: string, idempotencyKey: string): Promise<GatewayCharge> {
    return storedByKey(this.prisma, accountId, idempotencyKey);
  }
}

/** The simulated gateway serving one account (both gateway kinds: src/gateway-registrations.ts). */
export const simulatedGateway: GatewayFactory = ({ prisma, account, temporal }) =>
  new SimulatedGateway(prisma, account.id, temporal);

/**
 * The bank's answer to a pending debit, when its settlement timer fires (workflows/bank-debit-settlement.ts): the
 * verdict stored with it applied once (succeeded, or failed with its ACH return), answered as the processor's
 * report of the charge, which the charge protocol records as any processor's webhook. A debit settled already
 * answers its report again; null: no such debit.
 */
export async function settleBankDebit(
  prisma: Db,
  debit: { accountId: string; chargeId: string },
): Promise<ProcessorReport | null> {
  const row = (await settleDebit(prisma, debit.accountId, debit.chargeId)) ?? (await chargeById(prisma, debit));
  if (!row || row.kind !== 'charge') return null;
  return { kind: 'charge', accountId: row.accountId, idempotencyKey: row.idempotencyKey, result: toChargeResult(row) };
}
