import type { AnyTx } from '../db/sql';
import type { PaymentMethod, Transaction } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { sqlTransaction, type SqlTx } from '../db/sql-transaction';
import { ApiError, badRequest } from '../http/errors';
import { currentOrigin, recordEvent } from '../lib/events';
import type { Gateways } from '../payments';
import { moveMoney } from '../payments';
import { confirmEntry } from '../payments';
import { assertPaysCurrency, paysCurrency, type OpenedEntry } from '../payments';
import { findDefaultPaymentMethod, findPaymentMethod, readPaymentMethod } from '../payments';
import { entryByGatewayKey, isInFlight } from '../transactions';
import { awaitsAuthentication } from '../transactions';
import { openPending, paymentAttempts, settlePending, type AttemptStep, type LedgerOutcome } from '../transactions';
import { findPaymentByKey, toInvoiceObject, updateLockedInvoice, type InvoiceWithLines } from './invoice.records';
import { lockInvoice, lockInvoiceForPayment } from './invoice-lock';
import type { InvoiceObject } from './invoice.schemas';
import { heldPaymentFailed } from './invoice-settlement';
import {
  assertPayable,
  draftInvoice,
  finalizesUntouched,
  writeDraftInvoice,
  writeFinalizedInvoice,
  type BillingInvoiceInput,
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
  /** This attempt, opened already in the transaction that finalized the invoice (openFirstAttempt): sent first. */
  opened?: OpenedEntry;
  /**
   * What the caller records with its own attempt's success, in the transaction that settles it and marks the
   * invoice paid (a subscription's paid first period: docs/performance.md, "Sixteenth round").
   */
  whenPaid?: (tx: SqlTx, paid: InvoiceWithLines, settled: Transaction) => Promise<void>;
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
  return { kind: 'settle', entry: await openAttempt(tx, invoice, amount, method, opts), own: true, opened: true };
}

/** The invoice's next attempt opened pending under its gateway key and counted, its lock held by the caller. */
async function openAttempt(
  tx: AnyTx,
  invoice: InvoiceWithLines,
  amount: bigint,
  method: PaymentMethod,
  opts: PayInvoiceOptions,
): Promise<Transaction> {
  const attemptNumber = invoice.attemptCount + 1;
  const attempt = await openAttemptEntry(tx, invoice, amount, method, attemptNumber, opts);
  await updateLockedInvoice(tx, invoice, { attemptCount: attemptNumber });
  return attempt;
}

/** The ledger's pending entry of attempt `attemptNumber` (the invoice's count is the caller's to write). */
function openAttemptEntry(
  tx: AnyTx,
  invoice: InvoiceWithLines,
  amount: bigint,
  method: PaymentMethod,
  attemptNumber: number,
  opts: PayInvoiceOptions,
): Promise<Transaction> {
  return openPending(tx, {
    accountId: invoice.accountId,
    type: 'payment',
    amount,
    currency: invoice.currency,
    customerId: invoice.customerId,
    invoiceId: invoice.id,
    paymentMethodId: method.id,
    attempt: attemptNumber,
    attemptKey: opts.attemptKey ?? null,
    gatewayKey: gatewayKeyFor(invoice.id, attemptNumber, opts.attemptKey),
    description: `Payment of invoice ${invoice.number}`,
    origin: originOf(opts),
  });
}

/** The method openFirstAttempt charges an invoice of `customerId` in `currency` with, or null when none is usable. */
async function firstAttemptMethod(
  tx: AnyTx,
  accountId: string,
  customerId: string,
  currency: string,
  paymentMethodId: string | undefined,
): Promise<PaymentMethod | null> {
  const method = paymentMethodId
    ? await readPaymentMethod(tx, accountId, paymentMethodId)
    : await findDefaultPaymentMethod(tx, accountId, customerId);
  return usableFirstAttemptMethod(method, customerId, currency);
}

/** The method found for a first attempt when it is the customer's and pays `currency`; null otherwise. */
function usableFirstAttemptMethod(
  method: PaymentMethod | null,
  customerId: string,
  currency: string,
): PaymentMethod | null {
  return method && method.customerId === customerId && paysCurrency(method.type, currency) ? method : null;
}

/**
 * The first attempt of an invoice just finalized in the caller's transaction, which holds its lock: opened there
 * as nextStep would open it (nothing to look for: it has no attempt yet), so the transaction's commit is the
 * attempt's (docs/performance.md, "Sixteenth round"), and collectInvoice sends it (`opened`). Null when no
 * attempt would be opened (nothing due, no usable method): collectInvoice then takes the usual path, which
 * says why.
 */
export async function openFirstAttempt(
  tx: AnyTx,
  invoice: InvoiceWithLines,
  opts: Pick<PayInvoiceOptions, 'paymentMethodId' | 'attemptKey' | 'origin'>,
): Promise<OpenedEntry | null> {
  const amount = invoice.amountDue - invoice.amountPaid;
  if (invoice.status !== 'open' || invoice.attemptCount !== 0 || amount <= 0n) return null;
  const method = await firstAttemptMethod(
    tx,
    invoice.accountId,
    invoice.customerId,
    invoice.currency,
    opts.paymentMethodId,
  );
  if (!method) return null;
  return { entry: await openAttempt(tx, invoice, amount, method, opts), method };
}

/**
 * A billing invoice charged automatically, made in the caller's transaction. When finalization would leave it
 * open with its whole amount due and a usable method is there (openFirstAttempt's), it is written once already
 * finalized with attempt 1 counted, and that attempt opened (`opened`): what insertInvoice, finalizeInTx and
 * openFirstAttempt leave, in about half their statements (docs/performance.md, "Eighteenth round"). Otherwise the
 * draft is written as createInvoiceForBilling writes it, for the caller to finalize (`opened` null; `methodMissing`
 * when no usable method was found, so that openFirstAttempt need not look again).
 */
export async function createChargedInvoiceForBilling(
  tx: AnyTx,
  accountId: string,
  input: BillingInvoiceInput,
  opts: Pick<PayInvoiceOptions, 'paymentMethodId' | 'attemptKey' | 'origin'>,
): Promise<{ invoice: InvoiceWithLines; opened: OpenedEntry | null; methodMissing: boolean }> {
  // The method the first attempt charges is read with the draft's inputs (firstAttemptMethod's, in one statement).
  const draft = await draftInvoice(tx, accountId, input, { id: opts.paymentMethodId || null });
  if (!finalizesUntouched(draft))
    return { invoice: await writeDraftInvoice(tx, draft), opened: null, methodMissing: false };
  const { customerId, currency } = draft.invoice;
  const method =
    draft.method === undefined
      ? await firstAttemptMethod(tx, accountId, customerId, currency, opts.paymentMethodId)
      : usableFirstAttemptMethod(draft.method, customerId, currency);
  if (!method) return { invoice: await writeDraftInvoice(tx, draft), opened: null, methodMissing: true };
  const invoice = await writeFinalizedInvoice(tx, draft, 1);
  const entry = await openAttemptEntry(tx, invoice, invoice.amountDue, method, 1, opts);
  return { invoice, opened: { entry, method }, methodMissing: false };
}

/**
 * Records an invoice payment's outcome once, with what it does to its invoice: paid, or `invoice.payment_failed`.
 * One the processor has not settled (a bank debit, a lost answer) leaves the invoice open, neither paid nor
 * failed, for the reconciliation (docs/decisions.md §40). The charge protocol's recorder of invoice payments.
 */
export async function recordInvoicePayment(
  prisma: Db,
  attempt: Transaction,
  outcome: LedgerOutcome,
  whenPaid?: PayInvoiceOptions['whenPaid'],
): Promise<LedgerOutcome['status']> {
  const accountId = attempt.accountId;
  await sqlTransaction(prisma, async (tx) => {
    const invoice = await lockInvoiceForPayment(tx, accountId, attempt.invoiceId!);
    // Read under the lock: the customer is asked to authenticate once, however often the processor is asked.
    // A success does not depend on what the entry was before.
    const before =
      outcome.status === 'failed' || outcome.status === 'pending'
        ? await entryByGatewayKey(tx, accountId, attempt.gatewayKey!)
        : null;
    if (!(await settlePending(tx, attempt.id, outcome))) return; // a concurrent call recorded this outcome already
    if (outcome.status === 'succeeded') {
      const paid = await markPaid(tx, accountId, invoice, attempt.amount, attempt.paymentMethodId);
      const settled = { ...attempt, status: outcome.status, gatewayReference: outcome.gatewayReference };
      await whenPaid?.(tx, paid, { ...settled, failureCode: null, failureMessage: null });
    } else if (outcome.status === 'failed') {
      await recordEvent(tx, accountId, 'invoice.payment_failed', toInvoiceObject(invoice));
      if (before?.status === 'pending' && before.gatewayReference !== null) heldPaymentFailed(invoice);
    } else if (outcome.status === 'pending' && outcome.actionRequired && !(before && awaitsAuthentication(before)))
      await recordEvent(tx, accountId, 'invoice.payment_action_required', toInvoiceObject(invoice));
    // The processor first says it holds the payment (a bank debit: days): told once, however often it is asked again.
    else if (outcome.status === 'pending' && !outcome.actionRequired && before?.gatewayReference === null)
      await recordEvent(tx, accountId, 'invoice.payment_processing', toInvoiceObject(invoice));
  });
  return outcome.status;
}

/** An entry the processor answered it holds (a bank debit settling for days), not one waiting for the customer. */
function heldByProcessor(entry: Transaction): boolean {
  return entry.status === 'pending' && entry.gatewayReference !== null && !awaitsAuthentication(entry);
}

/** The invoice's payment its processor holds (a bank debit: docs/decisions.md §40), or null. */
export async function paymentHeldByProcessor(
  prisma: Db,
  accountId: string,
  invoiceId: string,
): Promise<Transaction | null> {
  const attempts = await paymentAttempts(prisma, accountId, invoiceId, null);
  return attempts.find(heldByProcessor) ?? null;
}

/** The invoice's payment waiting for its customer to authenticate it (3-D Secure), or null. */
export async function paymentAwaitingAuthentication(
  prisma: Db,
  accountId: string,
  invoiceId: string,
): Promise<Transaction | null> {
  const attempts = await paymentAttempts(prisma, accountId, invoiceId, null);
  return attempts.find(awaitsAuthentication) ?? null;
}

/**
 * The customer authenticated the invoice's payment on its hosted page (docs/api.md "Hosted pages"): the
 * processor confirms the attempt waiting for it, under its own key, and the outcome is recorded as any other.
 * `nothing_waiting`: no attempt waits (paid meanwhile, or never asked); `elsewhere`: the account's processor
 * authenticates on a page of its own.
 */
export async function authenticateInvoicePayment(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  invoiceId: string,
): Promise<'recorded' | 'nothing_waiting' | 'elsewhere'> {
  const waiting = await paymentAwaitingAuthentication(prisma, accountId, invoiceId);
  if (!waiting) return 'nothing_waiting';
  const recorded = await confirmEntry(gateways, waiting, {
    record: (attempt, outcome) => recordInvoicePayment(prisma, attempt, outcome),
    unavailable: 'The payment still waits for authentication; try again in a moment.',
  });
  return recorded ? 'recorded' : 'elsewhere';
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
  const own = (attempt: Transaction) => opts.attemptKey !== undefined && attempt.attemptKey === opts.attemptKey;
  return moveMoney(prisma, gateways, {
    next: (tx: SqlTx) => nextStep(tx, accountId, invoiceId, opts),
    opened: opts.opened,
    record: (attempt, outcome) =>
      recordInvoicePayment(prisma, attempt, outcome, own(attempt) ? opts.whenPaid : undefined),
    unavailable: 'The attempt stays pending; paying the invoice again completes it without a second charge.',
    // An attempt still in flight after it was asked about holds the invoice: no new one is made beside it.
    finished: (status) => status !== 'failed',
    inTransaction: (work) => sqlTransaction(prisma, work),
  });
}

/** What became of a collection attempt, for callers that act on it (the renewal workflow) rather than answer HTTP. */
export type Collection =
  | { outcome: 'paid' }
  | { outcome: 'already_paid' }
  | { outcome: 'void' }
  /** The charge was declined (or failed at the gateway); the invoice stays open. */
  | { outcome: 'failed'; failureCode: string | null }
  /**
   * The processor holds the charge (a bank debit: days): neither paid nor failed, and no attempt may be made beside
   * it. Its outcome is recorded when the processor reports it, and the subscription's workflow is told.
   */
  | { outcome: 'pending' }
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
  const attempt = opts.attemptKey ? await findPaymentByKey(prisma, accountId, invoiceId, opts.attemptKey) : null;
  if (attempt && heldByProcessor(attempt)) return { outcome: 'pending' };
  return { outcome: 'failed', failureCode: attempt?.failureCode ?? null };
}
