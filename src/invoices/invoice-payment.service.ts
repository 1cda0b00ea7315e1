import type { AnyTx } from '../db/sql';
import type { PaymentMethod, Transaction } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { sqlTransaction, type SqlTx } from '../db/sql-transaction';
import { ApiError, badRequest } from '../http/errors';
import { logger } from '../http/logger';
import { currentOrigin, recordEvent } from '../lib/events';
import type { Gateways } from '../payments';
import { collectEntry } from '../payments';
import { chargeOutcome } from '../payments';
import type { ProcessorReport } from '../payments';
import { assertPaysCurrency } from '../payments';
import { findDefaultPaymentMethod, findPaymentMethod, readPaymentMethod } from '../payments';
import { invoicePaymentsInFlight, isInFlight } from '../transactions';
import { entryByGatewayKey } from '../transactions';
import {
  openPending,
  paymentAttempts,
  runAttempt,
  settlePending,
  type AttemptStep,
  type LedgerOutcome,
} from '../transactions';
import { toInvoiceObject, updateLockedInvoice, type InvoiceWithLines } from './invoice.records';
import { lockInvoice } from './invoice-lock';
import type { InvoiceObject } from './invoice.schemas';
import {
  assertPayable,
  finalizeInTx,
  getInvoice,
  InvoiceNotPayableError,
  markPaid,
  paidWithNothingDue,
  withParam,
} from './invoice.service';
import type { ChargeOrigin } from '../transactions';

export interface PayInvoiceOptions {
  /** A method attached to the invoice's customer; the customer's default when absent. */
  paymentMethodId?: string;
  /**
   * The caller's name for this attempt (an Idempotency-Key, a workflow id + step). A second call with
   * the same key finishes or answers that attempt instead of charging again.
   */
  attemptKey?: string;
  /**
   * What starts this attempt, recorded with its transaction (src/transactions/transaction-origin.ts). A hosted
   * page's action (`fromOrigin`) is the customer's own, whatever code path it takes (checkout creates a
   * subscription, whose first charge would say `subscription_period`): the page's origin wins.
   */
  origin?: ChargeOrigin;
}

function originOf(opts: PayInvoiceOptions): ChargeOrigin | null {
  const page = currentOrigin();
  if (page === 'hosted_invoice_page' || page === 'hosted_checkout') return { origin: page };
  return opts.origin ?? null;
}

/** Gateway idempotency key of an attempt: the invoice plus the attempt's number or the caller's key. */
function gatewayKeyFor(invoiceId: string, attemptNumber: number, attemptKey: string | undefined): string {
  return attemptKey
    ? `invoice:${invoiceId}:payment:key:${attemptKey}`
    : `invoice:${invoiceId}:payment:${attemptNumber}`;
}

async function resolvePaymentMethod(
  tx: AnyTx,
  accountId: string,
  invoice: InvoiceWithLines,
  requested?: string,
): Promise<PaymentMethod> {
  if (requested) {
    const method = await withParam('payment_method', () => findPaymentMethod(tx, accountId, requested));
    if (method.customerId !== invoice.customerId) {
      throw badRequest(
        `Payment method ${requested} is not attached to customer ${invoice.customerId}.`,
        'payment_method',
        'payment_method_not_attached',
      );
    }
    assertPaysCurrency(method, invoice.currency, 'payment_method');
    return method;
  }
  const method = await findDefaultPaymentMethod(tx, accountId, invoice.customerId);
  if (!method) {
    throw badRequest(
      `Customer ${invoice.customerId} has no payment method on file; attach one or name one in payment_method.`,
      'payment_method',
      'payment_method_missing',
    );
  }
  assertPaysCurrency(method, invoice.currency, 'payment_method');
  return method;
}

/**
 * Under the invoice lock: finish what is in flight first (a pending attempt left by a crash or a
 * concurrent request), else finalize a draft and open a new attempt as a pending transaction. The
 * attempt is committed before the gateway is called, so its key survives a crash.
 */
async function nextStep(
  tx: AnyTx,
  accountId: string,
  invoiceId: string,
  opts: PayInvoiceOptions,
): Promise<AttemptStep<InvoiceObject>> {
  let invoice = await lockInvoice(tx, accountId, invoiceId);
  // The caller's own attempt and the attempts in flight, in one read.
  const attempts = await paymentAttempts(tx, accountId, invoiceId, opts.attemptKey ?? null);
  const mine = opts.attemptKey ? attempts.find((attempt) => attempt.attemptKey === opts.attemptKey) : undefined;
  if (mine)
    return isInFlight(mine)
      ? { kind: 'settle', entry: mine, own: true }
      : { kind: 'done', value: toInvoiceObject(invoice) };
  const inFlight = attempts.find(isInFlight);
  if (inFlight) return { kind: 'settle', entry: inFlight, own: false };

  assertPayable(invoice);
  // Finalized first: the customer's credit balance it applies lowers what is charged (docs/decisions.md §22),
  // and an invoice it leaves with nothing to collect is paid there. A missing method throws below and rolls
  // the finalization back, so the draft stays a draft.
  if (invoice.status === 'draft')
    invoice = await finalizeInTx(tx, accountId, invoice, { attemptKey: opts.attemptKey ?? null });
  if (invoice.status === 'paid') return { kind: 'done', value: toInvoiceObject(invoice) };
  const amount = invoice.amountDue - invoice.amountPaid;
  // An open invoice with nothing to collect (finalized before finalization paid such invoices): paid now.
  if (amount <= 0n)
    return {
      kind: 'done',
      value: toInvoiceObject(await paidWithNothingDue(tx, invoice, opts.attemptKey ?? null, originOf(opts))),
    };
  const method = await resolvePaymentMethod(tx, accountId, invoice, opts.paymentMethodId);

  const attemptNumber = invoice.attemptCount + 1;
  const attempt = await openPending(tx, {
    accountId,
    type: 'payment',
    amount,
    currency: invoice.currency,
    customerId: invoice.customerId,
    invoiceId,
    paymentMethodId: method.id,
    attempt: attemptNumber,
    attemptKey: opts.attemptKey ?? null,
    gatewayKey: gatewayKeyFor(invoiceId, attemptNumber, opts.attemptKey),
    description: `Payment of invoice ${invoice.number}`,
    origin: originOf(opts),
  });
  await updateLockedInvoice(tx, invoice, { attemptCount: attemptNumber });
  return { kind: 'settle', entry: attempt, own: true };
}

/**
 * Charges an attempt in flight (idempotently, by its key: one already sent is asked about first) and records
 * the outcome once. One the processor has not settled (a bank debit, a lost answer) leaves the invoice open,
 * neither paid nor failed, for the reconciliation (docs/decisions.md §40).
 */
async function settle(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  attempt: Transaction,
): Promise<LedgerOutcome['status']> {
  const method = await readPaymentMethod(prisma, accountId, attempt.paymentMethodId!);
  if (!method) throw new Error(`Payment method ${attempt.paymentMethodId} of attempt ${attempt.id} is gone.`);
  const outcome = await collectEntry(
    gateways,
    attempt,
    method,
    'The attempt stays pending; paying the invoice again completes it without a second charge.',
  );
  return recordOutcome(prisma, accountId, attempt, outcome);
}

/** Records an attempt's outcome once, with what it does to its invoice (a settled outcome only). */
async function recordOutcome(
  prisma: Db,
  accountId: string,
  attempt: Transaction,
  outcome: LedgerOutcome,
): Promise<LedgerOutcome['status']> {
  await sqlTransaction(prisma, async (tx) => {
    const invoice = await lockInvoice(tx, accountId, attempt.invoiceId!);
    if (!(await settlePending(tx, attempt.id, outcome))) return; // a concurrent call recorded this outcome already
    if (outcome.status === 'succeeded') await markPaid(tx, accountId, invoice, attempt.amount, attempt.paymentMethodId);
    else if (outcome.status === 'failed')
      await recordEvent(tx, accountId, 'invoice.payment_failed', toInvoiceObject(invoice));
  });
  return outcome.status;
}

/**
 * PUT /invoices/{id}: finalize a draft, charge the named or default payment method, record the
 * attempt. A decline leaves the invoice open (attempt_count grows, invoice.payment_failed) and is
 * answered with the invoice, not an error. Safe to repeat: an attempt in flight is completed rather
 * than charged again, and the same `attemptKey` never charges twice.
 */
export async function payInvoice(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  invoiceId: string,
  opts: PayInvoiceOptions = {},
): Promise<InvoiceObject> {
  const ran = await attemptPayment(prisma, gateways, accountId, invoiceId, opts);
  if (ran?.kind === 'done') return ran.value;
  return getInvoice(prisma, accountId, invoiceId);
}

/**
 * An attempt left in flight (a crash, a lost gateway answer, a concurrent request) is completed
 * first; if it paid the invoice that is the answer, otherwise this call makes its own attempt.
 */
function attemptPayment(prisma: Db, gateways: Gateways, accountId: string, invoiceId: string, opts: PayInvoiceOptions) {
  return runAttempt(
    prisma,
    (tx: SqlTx) => nextStep(tx, accountId, invoiceId, opts),
    (attempt) => settle(prisma, gateways, accountId, attempt),
    // An attempt still in flight after it was asked about holds the invoice: no new one is made beside it.
    (status) => status !== 'failed',
    (work) => sqlTransaction(prisma, work),
  );
}

/** What became of a collection attempt, for callers that act on it (the renewal workflow) rather than answer HTTP. */
export type Collection =
  | { outcome: 'paid' }
  | { outcome: 'already_paid' }
  | { outcome: 'void' }
  /** The charge was declined (or failed at the gateway); the invoice stays open. */
  | { outcome: 'failed'; failureCode: string | null }
  /** No charge could be made (no usable payment method): `failureCode` says why. */
  | { outcome: 'not_attempted'; failureCode: string };

/** payInvoice, answered as a Collection instead of an invoice or a 4xx. */
export async function collectInvoice(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  invoiceId: string,
  opts: PayInvoiceOptions = {},
): Promise<Collection> {
  let ran: Awaited<ReturnType<typeof attemptPayment>>;
  try {
    ran = await attemptPayment(prisma, gateways, accountId, invoiceId, opts);
  } catch (error) {
    if (error instanceof InvoiceNotPayableError)
      return { outcome: error.invoiceStatus === 'paid' ? 'already_paid' : 'void' };
    if (error instanceof ApiError && error.type !== 'api_error')
      return { outcome: 'not_attempted', failureCode: error.code };
    throw error;
  }
  // A settled success has marked the invoice paid (under its lock, committed): no need to read it again.
  const paid =
    ran?.kind === 'settled'
      ? ran.value === 'succeeded'
      : (ran?.value ?? (await getInvoice(prisma, accountId, invoiceId))).status === 'paid';
  if (paid) return { outcome: 'paid' };
  const attempt = opts.attemptKey
    ? await prisma.transaction.findFirst({
        where: { accountId, invoiceId, type: 'payment', attemptKey: opts.attemptKey },
      })
    : null;
  return { outcome: 'failed', failureCode: attempt?.failureCode ?? null };
}

export interface ReconciliationPassInput {
  /** A `pending` attempt younger than this is left to the request charging it (60 s unless given). */
  pendingOlderThanMs?: number;
  /** The last attempt of the previous batch. */
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
 * One batch of the payment reconciliation (docs/decisions.md §40): each invoice payment in flight (every
 * `unknown` one, and each `pending` one older than `pendingOlderThanMs`) is asked of its processor under its
 * own key and recorded as a request paying the invoice would. One that cannot be finished now (its processor
 * still cannot answer) is left as it was, for the next pass.
 */
export async function reconcileInvoicePayments(
  prisma: Db,
  gateways: Gateways,
  input: ReconciliationPassInput,
): Promise<ReconciliationPass> {
  const batch = await invoicePaymentsInFlight(
    prisma,
    input.pendingOlderThanMs ?? 60_000,
    input.after ?? null,
    RECONCILIATION_BATCH,
  );
  let settled = 0;
  for (const attempt of batch) {
    try {
      const status = await settle(prisma, gateways, attempt.accountId, attempt);
      if (status === 'succeeded' || status === 'failed') settled += 1;
    } catch (error) {
      // One attempt that cannot be finished (its processor down, its method gone) holds up none of the others:
      // it stays in flight, to be asked about again by the next pass.
      logger.warn(
        { err: error, transaction: attempt.id },
        'payment in flight not reconciled; the next pass asks again',
      );
    }
  }
  return {
    asked: batch.length,
    settled,
    after: batch.length === RECONCILIATION_BATCH ? batch[batch.length - 1]!.id : null,
  };
}

/**
 * A processor's own report of what became of a charge (its webhook: docs/architecture.md, "Payment
 * processors"), recorded as the attempt's outcome, once. `ignored`: no invoice payment of the account was
 * sent under that key (an object the service did not create), or its attempt is settled already.
 */
export async function recordReportedCharge(
  prisma: Db,
  report: Extract<ProcessorReport, { kind: 'charge' }>,
): Promise<'recorded' | 'ignored'> {
  const attempt = await entryByGatewayKey(prisma, report.accountId, report.idempotencyKey);
  if (!attempt || attempt.type !== 'payment' || !attempt.invoiceId || !isInFlight(attempt)) return 'ignored';
  await recordOutcome(prisma, report.accountId, attempt, chargeOutcome(report.result));
  return 'recorded';
}
