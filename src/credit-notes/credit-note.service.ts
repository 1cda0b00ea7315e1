import type { CreditNote, CreditNoteLine, Transaction } from '../generated/prisma/client';
import { assertNoDisputeHoldsFunds } from '../invoices';
import type { Db, Tx } from '../db/prisma';
import { runTransaction } from '../db/sql-transaction';
import { badRequest, conflict, notFound } from '../http/errors';
import { keysetListPage, type Page } from '../http/pagination';
import { markPricesBilled } from '../catalog';
import { currentTime } from '../lib/clock-time';
import { recordEvent } from '../lib/events';
import { idFromSeed, newId } from '../lib/ids';
import { toUnixSeconds } from '../lib/time';
import { updatedMsOf } from '../lib/object-version';
import { columnValue } from '../lib/columns';
import type { Gateways } from '../payments';
import { REFUND_UNAVAILABLE, finishEntry } from '../payments';
import { openRefund, recordInvoiceRefund, refundInFlight } from '../invoices';
import { findInvoice, lockInvoice, toInvoiceObject, updateLockedInvoice, type InvoiceWithLines } from '../invoices';
import type { InvoiceObject } from '../invoices';
import { discountedLineShares } from '../invoices';
import { invoiceCreditable } from '../invoices';
import { recordCustomerUpdated, withParam } from '../invoices';
import { countPendingEntries, findEntry, isInFlight, recordAdjustment, recordBalanceEntry } from '../transactions';
import type { LedgerOutcome } from '../transactions';
import { invoiceSettled } from '../invoices';
import {
  allocateCreditNoteNumber,
  creditedPerLine,
  creditNoteById,
  creditNoteList,
  creditNoteByNumber,
  creditNoteByTransaction,
  findCreditNote,
  insertCreditNote,
  updateCreditNote,
  type CreditNoteWithLines,
} from './credit-note.records';
import {
  CREDIT_NOTE_REASONS,
  CREDIT_NOTE_STATUSES,
  CREDIT_NOTE_TYPES,
  REFUND_DESTINATIONS,
  type CreateCreditNoteInput,
  type CreditNoteObject,
  type ListCreditNotesQuery,
} from './credit-note.schemas';

export function toCreditNoteObject(note: CreditNoteWithLines): CreditNoteObject {
  return {
    id: note.id,
    object: 'credit_note',
    number: note.number,
    invoice: note.invoiceId,
    customer: note.customerId,
    currency: note.currency,
    amount: Number(note.amount),
    reason: columnValue(CREDIT_NOTE_REASONS, note.reason, 'credit_notes.reason'),
    type: columnValue(CREDIT_NOTE_TYPES, note.type, 'credit_notes.type'),
    refund_to:
      note.refundTo === null ? null : columnValue(REFUND_DESTINATIONS, note.refundTo, 'credit_notes.refund_to'),
    memo: note.memo,
    status: columnValue(CREDIT_NOTE_STATUSES, note.status, 'credit_notes.status'),
    transaction: note.transactionId,
    customer_balance_transaction: note.customerBalanceTransactionId,
    lines: [...note.lines]
      .sort((a, b) => a.position - b.position)
      .map((line) => ({
        id: line.id,
        object: 'credit_note_line' as const,
        invoice_line: line.invoiceLineId,
        description: line.description,
        quantity: line.quantity,
        amount: Number(line.amount),
      })),
    created: toUnixSeconds(note.createdAt),
    voided_at: toUnixSeconds(note.voidedAt),
    updated_ms: updatedMsOf(note),
  };
}

/** `quantity` of the line's `of` units, in cents of its discounted total, rounded half-up (docs/decisions.md §22). */
function shareOf(total: bigint, quantity: number, of: number): bigint {
  return (total * BigInt(quantity) * 2n + BigInt(of)) / (2n * BigInt(of));
}

type NewLine = Omit<CreditNoteLine, 'creditNoteId'>;

/** The lines of the credit note and their sum, each checked against what is left of its invoice line. */
async function creditLines(
  tx: Tx,
  invoice: InvoiceWithLines,
  input: CreateCreditNoteInput,
): Promise<{ lines: NewLine[]; amount: bigint; param: string }> {
  const line = (position: number, fields: Omit<NewLine, 'id' | 'accountId' | 'position'>): NewLine => ({
    id: newId('creditNoteLine'),
    accountId: invoice.accountId,
    position,
    ...fields,
  });
  if (input.lines === undefined) {
    if (input.amount === undefined)
      throw badRequest('Give `lines` or `amount`: what the credit note credits.', 'amount', 'parameter_missing');
    const amount = BigInt(input.amount);
    const description = `Credit on invoice ${invoice.number}`;
    return {
      lines: [line(0, { invoiceLineId: null, description, quantity: null, amount })],
      amount,
      param: 'amount',
    };
  }
  if (input.amount !== undefined) throw badRequest('Give `lines` or `amount`, not both.', 'amount');
  const credited = await creditedPerLine(tx, invoice.accountId, invoice.id);
  // A line is credited at most what the customer was billed for it: its total after its share of the discount.
  const billedShares = discountedLineShares(invoice);
  const seen = new Set<string>();
  const lines = input.lines.map((asked, index) => {
    const param = `lines.${index}`;
    const billed = invoice.lines.find((candidate) => candidate.id === asked.invoice_line);
    if (!billed) throw badRequest(`Invoice ${invoice.id} has no line ${asked.invoice_line}.`, `${param}.invoice_line`);
    if (seen.has(billed.id)) throw badRequest(`Line ${billed.id} is named twice.`, `${param}.invoice_line`);
    seen.add(billed.id);
    if (asked.quantity !== undefined && asked.amount !== undefined)
      throw badRequest('Give `quantity` or `amount` for a line, not both.', `${param}.amount`);
    if (asked.quantity !== undefined && asked.quantity > billed.quantity)
      throw badRequest(`quantity ${asked.quantity} exceeds the line's ${billed.quantity}.`, `${param}.quantity`);
    const total = billedShares.get(billed.id)!;
    const left = total - (credited.get(billed.id) ?? 0n);
    const amount =
      asked.amount !== undefined
        ? BigInt(asked.amount)
        : asked.quantity !== undefined
          ? shareOf(total, asked.quantity, billed.quantity)
          : left;
    const field = asked.amount !== undefined ? 'amount' : asked.quantity !== undefined ? 'quantity' : 'invoice_line';
    if (amount > left || left <= 0n)
      throw badRequest(
        `${amount} cents exceed the ${left} cents left to credit on line ${billed.id}.`,
        `${param}.${field}`,
        'amount_exceeds_creditable',
      );
    return line(index, {
      invoiceLineId: billed.id,
      description: billed.description,
      quantity: asked.quantity ?? null,
      amount,
    });
  });
  return { lines, amount: lines.reduce((sum, each) => sum + each.amount, 0n), param: 'lines' };
}

/** What one creation wrote: the credit note, the invoice as it left it, and a card refund to complete at the gateway. */
interface Issued {
  note: CreditNoteWithLines;
  invoice: InvoiceObject;
  refund: Transaction | null;
}

/** An invoice a credit note may be issued against now: finalized, not void, no payment or refund of it in flight. */
async function assertCreditable(tx: Tx, accountId: string, invoice: InvoiceWithLines): Promise<void> {
  if (invoice.status === 'draft')
    throw conflict(
      `Invoice ${invoice.id} is a draft; credit notes are issued against finalized invoices (edit or void the draft).`,
      'invoice_not_finalized',
    );
  if (invoice.status === 'void')
    throw conflict(`Invoice ${invoice.id} is void; there is nothing to credit.`, 'invoice_void');
  assertNoDisputeHoldsFunds(invoice);
  if ((await countPendingEntries(tx, accountId, invoice.id, 'payment')) > 0)
    throw conflict(
      `A payment of invoice ${invoice.id} is in progress; try again when it has settled.`,
      'payment_in_progress',
    );
  if (await refundInFlight(tx, accountId, invoice.id))
    throw conflict(
      `A refund of invoice ${invoice.id} is in progress; try again when it has settled.`,
      'refund_in_progress',
    );
}

/**
 * Under the invoice's lock: checks the credit against what is left, then writes the credit note and
 * its effect (docs/decisions.md §22). Concurrent credit notes of one invoice queue on the lock, each
 * checking against what the previous ones left.
 */
async function issue(tx: Tx, accountId: string, input: CreateCreditNoteInput, id: string): Promise<Issued> {
  const invoice = await withParam('invoice', () => lockInvoice(tx, accountId, input.invoice));
  await assertCreditable(tx, accountId, invoice);

  const { lines, amount, param } = await creditLines(tx, invoice, input);
  const exceeds = (left: bigint, what: string) =>
    badRequest(
      `${amount} cents exceed the ${left} cents ${what} on invoice ${invoice.id}.`,
      param,
      'amount_exceeds_creditable',
    );
  let transactionId: string | null = null;
  let balanceEntryId: string | null = null;
  let refund: Transaction | null = null;
  let changed: InvoiceWithLines;
  let invoiceEvent: string;

  if (invoice.status === 'open') {
    if (input.refund_to !== undefined)
      throw badRequest(
        'An open invoice is credited by lowering its amount due: refund_to applies to paid invoices only.',
        'refund_to',
      );
    const remaining = invoice.amountDue - invoice.amountPaid;
    if (amount > remaining) throw exceeds(remaining, 'left to pay');
    const settled = amount === remaining;
    // Nothing left to pay: the invoice is paid, as Stripe marks a fully credited invoice (decisions.md §22).
    changed = await updateLockedInvoice(tx, invoice, {
      amountDue: invoice.amountDue - amount,
      prePaymentCreditNotesAmount: invoice.prePaymentCreditNotesAmount + amount,
      ...(settled ? { status: 'paid', paidAt: currentTime() } : {}),
    });
    invoiceEvent = settled ? 'invoice.payment_succeeded' : 'invoice.updated';
    if (settled) {
      invoiceSettled(changed);
      const priceIds = changed.lines.flatMap((line) => (line.priceId ? [line.priceId] : []));
      if (priceIds.length > 0) await markPricesBilled(tx, accountId, priceIds);
    }
  } else {
    if (input.refund_to === undefined)
      throw badRequest(
        'A paid invoice is credited back somewhere: refund_to is card, customer_balance or outside.',
        'refund_to',
        'parameter_missing',
      );
    const creditable = await invoiceCreditable(tx, invoice);
    if (amount > creditable) throw exceeds(creditable, 'left to credit');
    const description = `Credit note for invoice ${invoice.number}`;
    if (input.refund_to === 'card') {
      const cardLeft = invoice.amountPaid - invoice.amountRefunded;
      if (amount > cardLeft) throw exceeds(cardLeft, 'paid by card and not refunded');
      refund = (await openRefund(tx, invoice, Number(amount), `credit_note:${id}`))!;
      transactionId = refund.id;
    } else if (input.refund_to === 'customer_balance') {
      const entry = await recordBalanceEntry(tx, {
        accountId,
        customerId: invoice.customerId,
        type: 'credit_note',
        amount: -amount,
        currency: invoice.currency,
        invoiceId: invoice.id,
        creditNoteId: id,
        description,
      });
      balanceEntryId = entry.id;
      await recordCustomerUpdated(tx, accountId, invoice.customerId);
    } else {
      const adjustment = await recordAdjustment(tx, {
        accountId,
        amount: -amount,
        currency: invoice.currency,
        customerId: invoice.customerId,
        invoiceId: invoice.id,
        description: `${description}, settled outside`,
      });
      transactionId = adjustment.id;
    }
    changed = await updateLockedInvoice(tx, invoice, {
      postPaymentCreditNotesAmount: invoice.postPaymentCreditNotesAmount + amount,
    });
    invoiceEvent = 'invoice.updated';
  }

  const note = await insertCreditNote(
    tx,
    {
      id,
      accountId,
      number: await allocateCreditNoteNumber(tx, accountId),
      invoiceId: invoice.id,
      customerId: invoice.customerId,
      currency: invoice.currency,
      amount,
      reason: input.reason,
      type: invoice.status === 'open' ? 'pre_payment' : 'post_payment',
      refundTo: input.refund_to ?? null,
      memo: input.memo ?? null,
      status: 'issued',
      transactionId,
      customerBalanceTransactionId: balanceEntryId,
      createdAt: currentTime(),
    },
    lines,
  );
  const invoiceObject = toInvoiceObject(changed);
  await recordEvent(tx, accountId, 'credit_note.created', toCreditNoteObject(note));
  await recordEvent(tx, accountId, invoiceEvent, invoiceObject);
  return { note, invoice: invoiceObject, refund };
}

/** The credit note a card refund entry is for, if any (the reconciliation's way from an entry to its recorder). */
export function creditNoteOfRefund(db: Db, refund: Transaction): Promise<CreditNote | null> {
  return creditNoteByTransaction(db, refund.accountId, refund.id);
}

/**
 * The charge protocol's recorder of a credit note's card refund: recorded as an invoice refund, and a refund the
 * processor refused voids its credit note (credit_note.voided), so what it would have credited is creditable again.
 */
export async function recordCreditNoteRefund(
  prisma: Db,
  note: Pick<CreditNote, 'id' | 'accountId'>,
  refund: Transaction,
  outcome: LedgerOutcome,
): Promise<CreditNoteWithLines> {
  const accountId = note.accountId;
  await recordInvoiceRefund(prisma, refund, outcome);
  return runTransaction(prisma, async (tx) => {
    const invoice = await lockInvoice(tx, accountId, refund.invoiceId!);
    const current = await findCreditNote(tx, accountId, note.id);
    // Issued and committed before its refund was settled: a note gone since is a broken invariant, not a 404.
    if (!current) throw new Error(`Credit note ${note.id} of a settled refund is gone.`);
    if (outcome.status !== 'failed' || current.status === 'void') return current;
    const voided = await updateCreditNote(tx, note.id, { status: 'void', voidedAt: currentTime() });
    const changed = await updateLockedInvoice(tx, invoice, {
      postPaymentCreditNotesAmount: invoice.postPaymentCreditNotesAmount - current.amount,
    });
    await recordEvent(tx, accountId, 'credit_note.voided', toCreditNoteObject(voided));
    await recordEvent(tx, accountId, 'invoice.updated', toInvoiceObject(changed));
    return voided;
  });
}

/**
 * POST /credit-notes. With an Idempotency-Key the credit note's id is derived from the key's claim
 * (`idempotencySeed`, docs/decisions.md §11), so a request that died after its commit (a gateway that
 * did not answer the refund) and is taken over finds its credit note and completes the refund, never
 * crediting twice.
 */
export async function createCreditNote(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  input: CreateCreditNoteInput,
  idempotencySeed?: string,
): Promise<{ note: CreditNoteObject; invoice: InvoiceObject }> {
  const id = idempotencySeed ? idFromSeed('creditNote', idempotencySeed) : newId('creditNote');
  const earlier = idempotencySeed ? await creditNoteById(prisma, accountId, id) : null;
  let issued: Issued;
  if (earlier) {
    const entry = earlier.transactionId ? await findEntry(prisma, accountId, earlier.transactionId) : null;
    const invoice = toInvoiceObject(await findInvoice(prisma, accountId, earlier.invoiceId));
    issued = { note: earlier, invoice, refund: entry?.type === 'refund' && isInFlight(entry) ? entry : null };
  } else {
    issued = await runTransaction(prisma, (tx) => issue(tx, accountId, input, id));
  }
  if (!issued.refund) return { note: toCreditNoteObject(issued.note), invoice: issued.invoice };
  const { note: issuedNote } = issued;
  const note = await finishEntry(
    prisma,
    gateways,
    issued.refund,
    {
      record: (refund, outcome) => recordCreditNoteRefund(prisma, issuedNote, refund, outcome),
      unavailable: REFUND_UNAVAILABLE,
      settledOnly: true,
    },
    !earlier,
  );
  return { note: toCreditNoteObject(note), invoice: issued.invoice };
}

/** GET /credit-notes/{id}: 404 also for another account's. */
export async function getCreditNote(prisma: Db, accountId: string, id: string): Promise<CreditNoteObject> {
  const note = await findCreditNote(prisma, accountId, id);
  if (!note) throw notFound('credit_note', id);
  return toCreditNoteObject(note);
}

/** The account's credit note numbered `number` (CN-000003), or null. */
export async function getCreditNoteByNumber(
  prisma: Db,
  accountId: string,
  number: string,
): Promise<CreditNoteObject | null> {
  const note = await creditNoteByNumber(prisma, accountId, number);
  return note ? toCreditNoteObject(note) : null;
}

export async function listCreditNotes(
  prisma: Db,
  accountId: string,
  query: ListCreditNotesQuery,
): Promise<Page<CreditNoteObject>> {
  const filter = { invoiceId: query.invoice, customerId: query.customer };
  return keysetListPage(query, {
    kind: 'credit_note',
    ...creditNoteList.reads(prisma, accountId, filter),
    objects: (notes) => notes.map(toCreditNoteObject),
  });
}
