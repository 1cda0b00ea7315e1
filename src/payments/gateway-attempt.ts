import type { PaymentMethod, Transaction } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import type { AnyTx } from '../db/sql';
import { ApiError } from '../http/errors';
import { logger } from '../http/logger';
import { isSettled, runAttempt } from '../transactions';
import { entriesInFlight, findEntry } from '../transactions';
import type { AttemptStep, LedgerOutcome } from '../transactions';
import { GatewayRequestError, type ChargeResult, type RefundResult } from './gateway';
import type { Gateways } from './gateways';
import { readPaymentMethod, toGatewayPaymentMethod } from './payment-method.service';

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
    case 'pending':
      return { status: 'pending', gatewayReference: result.chargeId };
    // The customer authenticating is a charge still in flight at the processor, as a bank debit is.
    case 'requires_action':
      return { status: 'pending', gatewayReference: result.chargeId, actionRequired: true };
    case 'unknown':
      return { status: 'unknown', gatewayReference: null };
  }
}

/**
 * Charges `entry` (or finds what became of it) and answers its outcome, in flight included. An entry that may
 * have been sent before (any but one the caller has just `opened`: a process may have died after sending it) is
 * asked about first under its key; one the processor never received is charged under that same key, never a new
 * one (a processor's own key expires: Stripe's after 24 hours).
 */
export async function collectEntry(
  gateways: Gateways,
  entry: Transaction,
  method: PaymentMethod,
  unavailable: string,
  opened = false,
): Promise<LedgerOutcome> {
  const gateway = await gateways.gatewayFor(entry.accountId);
  const idempotencyKey = entry.gatewayKey!;
  const paymentMethod = toGatewayPaymentMethod(method);
  const result = await atGateway(async () => {
    if (!opened) {
      const found = await gateway.retrieveCharge({
        idempotencyKey,
        chargeId: entry.gatewayReference ?? undefined,
        sentTo: { paymentMethod, openedAt: entry.createdAt },
      });
      if (found) return found;
    }
    return gateway.charge({
      amount: Number(entry.amount),
      currency: entry.currency,
      paymentMethod,
      idempotencyKey,
      description: entry.description ?? undefined,
      metadata: entry.invoiceId ? { invoice_id: entry.invoiceId } : undefined,
    });
  }, unavailable);
  return chargeOutcome(result);
}

/** The ledger's outcome of what the processor said of a refund: `pending` keeps its reference, as a charge's does. */
export function refundOutcome(result: RefundResult): LedgerOutcome {
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
    case 'pending':
      return { status: 'pending', gatewayReference: result.refundId };
    case 'unknown':
      return { status: 'unknown', gatewayReference: null };
  }
}

/** Refunds `-refund.amount` cents of the charge behind `source` (the payment entry refunded), asking first as a charge does. */
async function refundAtGateway(
  gateways: Gateways,
  refund: Transaction,
  source: Transaction,
  unavailable: string,
  opened: boolean,
): Promise<LedgerOutcome> {
  const gateway = await gateways.gatewayFor(refund.accountId);
  const idempotencyKey = refund.gatewayKey!;
  const result = await atGateway(async () => {
    if (!opened) {
      const found = await gateway.retrieveRefund({ idempotencyKey, refundId: refund.gatewayReference ?? undefined });
      if (found) return found;
    }
    return gateway.refund({ chargeId: source.gatewayReference!, amount: Number(-refund.amount), idempotencyKey });
  }, unavailable);
  return refundOutcome(result);
}

/**
 * Sends an entry opened in flight to its account's processor under the entry's own key (a payment charges its
 * method, a refund refunds the payment it names), or asks first what became of one that may have been sent
 * before (all but one the caller has just `opened`). Answers the outcome, in flight included.
 */
async function sendEntry(
  prisma: Db,
  gateways: Gateways,
  entry: Transaction,
  unavailable: string,
  opened = false,
  methodRead?: PaymentMethod,
): Promise<LedgerOutcome> {
  if (entry.type === 'refund') {
    const source = await findEntry(prisma, entry.accountId, entry.sourceTransactionId!);
    if (!source) throw new Error(`Payment ${entry.sourceTransactionId} refunded by ${entry.id} is gone.`);
    return refundAtGateway(gateways, entry, source, unavailable, opened);
  }
  const method = methodRead ?? (await readPaymentMethod(prisma, entry.accountId, entry.paymentMethodId!));
  if (!method) throw new Error(`Payment method ${entry.paymentMethodId} of entry ${entry.id} is gone.`);
  return collectEntry(gateways, entry, method, unavailable, opened);
}

/**
 * What the owner of an entry (an invoice, a payment plan, a credit note) does with its outcome: settles the entry
 * (`settlePending`) with what the outcome does to the owner, under the owner's lock, once. The same recorder
 * serves the request that sent the entry, the reconciliation and the processor's own report.
 */
export type OutcomeRecorder<S> = (entry: Transaction, outcome: LedgerOutcome) => Promise<S>;

/** How a refund left in flight gets finished, said by the 502 answering it. */
export const REFUND_UNAVAILABLE = 'The refund stays pending; asking again (or the reconciliation) completes it.';

export interface EntryRecording<S> {
  record: OutcomeRecorder<S>;
  /** How the entry gets finished, said by the 502 of a processor that could not take the call. */
  unavailable: string;
  /**
   * For owners that answer settled outcomes only (payment plans' charges, refunds): an outcome still in flight is
   * recorded, left to the reconciliation, and answered as that 502.
   */
  settledOnly?: boolean;
}

/** The failed outcome a refusal of `entry` is, or null when it must stay in flight (docs/decisions.md §45). */
function refusalOutcome(entry: Transaction, error: GatewayRequestError): LedgerOutcome | null {
  const neverAnswered = entry.status === 'pending' && entry.gatewayReference === null;
  if (!error.final || !neverAnswered) return null;
  return { status: 'failed', gatewayReference: null, failureCode: error.code, failureMessage: error.message };
}

/**
 * The processor refused the call for `entry` (docs/decisions.md §45). A final refusal of an entry it never
 * answered (this very request refused for a parameter or an object it does not know: nothing moved under the key)
 * is recorded failed by its owner, with the processor's code and message, and answered 400 `processor_refused`;
 * any other (the account's key refused, a key in use, a refusal while asking about an entry sent before) leaves the
 * entry as it was, in flight under its key, and is answered 502 `processor_error`: a charge is never recorded
 * failed while an earlier send of it may have moved money.
 */
async function refusedByProcessor(
  entry: Transaction,
  error: GatewayRequestError,
  record: OutcomeRecorder<unknown>,
): Promise<ApiError> {
  const what = entry.type === 'refund' ? 'refund' : 'payment';
  const failed = refusalOutcome(entry, error);
  if (failed) {
    await record(entry, failed);
    return new ApiError(
      'invalid_request_error',
      'processor_refused',
      `The payment processor refused the ${what} (${error.code}): ${error.message} It was recorded as failed.`,
    );
  }
  return new ApiError(
    'api_error',
    'processor_error',
    `The payment processor refused the ${what} (${error.code}): ${error.message} Nothing was recorded as paid or failed: ` +
      'the attempt stays pending under its key and is sent again, never twice, once the processor takes it.',
    undefined,
    502,
  );
}

/**
 * The charge protocol's second half for an entry opened already (docs/architecture.md, "Payment processors"):
 * sent to the processor (or asked about, unless the caller has just `opened` it) under its key, and its outcome
 * recorded by its owner. `method`: the payment's method as the transaction that opened the entry read it, not read
 * again.
 */
export async function finishEntry<S>(
  prisma: Db,
  gateways: Gateways,
  entry: Transaction,
  recording: EntryRecording<S>,
  opened = false,
  method?: PaymentMethod,
): Promise<S> {
  let outcome: LedgerOutcome;
  try {
    outcome = await sendEntry(prisma, gateways, entry, recording.unavailable, opened, method);
  } catch (error) {
    if (error instanceof GatewayRequestError) throw await refusedByProcessor(entry, error, recording.record);
    throw error;
  }
  const recorded = await recording.record(entry, outcome);
  if (recording.settledOnly && !isSettled(outcome)) throw gatewayUnavailable(recording.unavailable);
  return recorded;
}

/**
 * The customer authenticated a charge waiting for it (`requires_action`) on the service's own page: the processor
 * confirms it under the entry's key and the owner records what became of it. Null when the account's processor
 * authenticates on a page of its own (Stripe's `next_action`), or knows no such charge.
 */
export async function confirmEntry<S>(
  gateways: Gateways,
  entry: Transaction,
  recording: EntryRecording<S>,
): Promise<S | null> {
  const gateway = await gateways.gatewayFor(entry.accountId);
  if (!gateway.confirmAction) return null;
  const request = { idempotencyKey: entry.gatewayKey!, chargeId: entry.gatewayReference ?? undefined };
  const result = await atGateway(() => gateway.confirmAction!(request), recording.unavailable);
  return result ? recording.record(entry, chargeOutcome(result)) : null;
}

/** Where the customer authenticates a charge: the service's own page, or the processor's (Stripe's `next_action`). */
export type AuthenticationPlace = { at: 'service' } | { at: 'processor'; url: string };

/**
 * Where the customer authenticates an entry waiting for it: on the service's page when the processor confirms
 * there (`confirmEntry`), else at the URL its processor answers for it now; null when it gives none (settled
 * meanwhile, or no URL).
 */
export async function authenticationPlace(gateways: Gateways, entry: Transaction): Promise<AuthenticationPlace | null> {
  const gateway = await gateways.gatewayFor(entry.accountId);
  if (gateway.confirmAction) return { at: 'service' };
  const request = { idempotencyKey: entry.gatewayKey!, chargeId: entry.gatewayReference ?? undefined };
  const found = await atGateway(() => gateway.retrieveCharge(request), 'Reload the page in a moment.');
  return found?.status === 'requires_action' && found.actionUrl ? { at: 'processor', url: found.actionUrl } : null;
}

export interface MoneyMovement<T, S, X extends AnyTx> extends EntryRecording<S> {
  /**
   * Under the owner's lock: an answer already, or the entry to send: one left in flight is handed over first
   * (`own: false`), else the caller's own, opened pending and committed before the processor is called.
   */
  next: (tx: X) => Promise<AttemptStep<T>>;
  /** Whether another attempt's outcome ends the caller's request (an invoice it paid). */
  finished?: (settled: S) => boolean;
  /** The transaction `next` runs in: Prisma's unless given (invoice payments run on sqlTransaction). */
  inTransaction?: (work: (tx: X) => Promise<AttemptStep<T>>) => Promise<AttemptStep<T>>;
  /** The caller's own entry, opened and committed already under the owner's lock with its method: sent first. */
  opened?: OpenedEntry;
}

/** A payment entry opened pending and committed, with the method it charges as its transaction read it. */
export interface OpenedEntry {
  entry: Transaction;
  method: PaymentMethod;
}

/**
 * The one charge protocol (docs/architecture.md, "Payment processors"): opens the attempt under its owner's
 * lock (or takes the one `opened` there already), calls the processor, records the outcome, and leaves one still in flight to the reconciliation. An
 * attempt in flight found first is finished before the caller's own (never a second charge beside it). Answers
 * `done`, the caller's recorded outcome, or null when other attempts kept the owner busy for every round.
 */
export function moveMoney<T, S, X extends AnyTx = Tx>(
  prisma: Db,
  gateways: Gateways,
  movement: MoneyMovement<T, S, X>,
) {
  const opened = movement.opened;
  return runAttempt<T, S, X>(
    prisma,
    movement.next,
    (entry, justOpened) =>
      finishEntry(prisma, gateways, entry, movement, justOpened, entry === opened?.entry ? opened.method : undefined),
    movement.finished,
    movement.inTransaction,
    opened?.entry,
  );
}

export interface ReconciliationPassInput {
  /** A `pending` entry younger than this is left to the request sending it (60 s unless given). */
  pendingOlderThanMs?: number;
  /** The last entry of the previous batch. */
  after?: string | null;
}

export interface ReconciliationPass {
  asked: number;
  settled: number;
  /** Where the next batch starts; null when this was the last. */
  after: string | null;
}

const RECONCILIATION_BATCH = 100;

/**
 * What the processor says of an entry in flight, for a reconciliation pass: a refusal for what the request says is
 * its failed outcome (asking again would be refused again); null (logged) when it cannot be told now.
 */
async function outcomeToRecord(prisma: Db, gateways: Gateways, entry: Transaction): Promise<LedgerOutcome | null> {
  try {
    return await sendEntry(prisma, gateways, entry, 'The next pass asks again.');
  } catch (error) {
    const failed = error instanceof GatewayRequestError ? refusalOutcome(entry, error) : null;
    if (!failed)
      logger.warn({ err: error, transaction: entry.id }, 'payment in flight not reconciled; the next pass asks again');
    return failed;
  }
}

/** Records an entry's outcome in a reconciliation pass: false (logged) when its owner could not. */
async function recordedInPass(record: OutcomeRecorder<unknown>, entry: Transaction, outcome: LedgerOutcome) {
  try {
    await record(entry, outcome);
    return true;
  } catch (error) {
    logger.warn({ err: error, transaction: entry.id }, 'payment in flight not reconciled; the next pass asks again');
    return false;
  }
}

/**
 * One batch of the payment reconciliation (docs/decisions.md §40): each charge or refund in flight (every
 * `unknown` one, and each `pending` one older than `pendingOlderThanMs`) is asked of its processor under its own
 * key and recorded by its owner (`recorderOf`) as the request would have. One that cannot be finished now (its
 * processor still cannot answer, its method gone) is left as it was, for the next pass.
 */
export async function reconcileEntries(
  prisma: Db,
  gateways: Gateways,
  input: ReconciliationPassInput,
  recorderOf: (entry: Transaction) => OutcomeRecorder<unknown>,
): Promise<ReconciliationPass> {
  const batch = await entriesInFlight(
    prisma,
    input.pendingOlderThanMs ?? 60_000,
    input.after ?? null,
    RECONCILIATION_BATCH,
  );
  let settled = 0;
  for (const entry of batch) {
    const outcome = await outcomeToRecord(prisma, gateways, entry);
    // One entry that cannot be finished holds up none of the others: it stays in flight for the next pass.
    if (outcome && (await recordedInPass(recorderOf(entry), entry, outcome)) && isSettled(outcome)) settled += 1;
  }
  return {
    asked: batch.length,
    settled,
    after: batch.length === RECONCILIATION_BATCH ? batch[batch.length - 1]!.id : null,
  };
}
