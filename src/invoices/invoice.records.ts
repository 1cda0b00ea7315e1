import { COLLECTION_METHODS, INVOICE_STATUSES } from './invoice.schemas';
import { columnValue } from '../lib/columns';
import { Prisma, type Invoice, type InvoiceLine, type Transaction } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { toUnixSeconds } from '../lib/time';
import type { InvoiceDisputeObject, InvoiceLineObject, InvoiceObject, TaxAmountObject } from './invoice.schemas';
import { updatedMsOf } from '../lib/object-version';
import type { LinePricing } from '../usage';
import { hostedInvoiceUrl, type HostedLinkRef, type NewHostedLink } from './hosted-link.records';
import {
  columnOfField,
  jsonObjectOf,
  jsonRecord,
  modelOfRow,
  queryRows,
  selectList,
  setFromRecord,
  statementOf,
  modelColumns,
  type Statement,
  type AnyTx,
  type Queryable,
  withNamesFrom,
} from '../db/sql';

/** An invoice with its lines and, once finalized, its hosted page's link (docs/decisions.md §29). */
export type InvoiceWithLines = Invoice & { lines: InvoiceLine[]; hostedLink?: HostedLinkRef | null };

/** What Prisma reads beside an invoice for toInvoiceObject. */
export const INVOICE_INCLUDE = {
  lines: true,
  hostedLink: { select: { tokenSealed: true, keyId: true } },
} as const;

type Address = NonNullable<InvoiceObject['customer_address']>;

function toLineObject(line: InvoiceLine, currency: string): InvoiceLineObject {
  return {
    id: line.id,
    object: 'line_item',
    description: line.description,
    amount: Number(line.amount),
    amount_excluding_tax: Number(line.amountExcludingTax),
    currency,
    quantity: line.quantity,
    unit_amount: Number(line.unitAmount),
    price: line.priceId,
    tax_rates: line.taxRateIds,
    tax_amounts: line.taxAmounts as TaxAmountObject[],
    period: { start: toUnixSeconds(line.periodStart), end: toUnixSeconds(line.periodEnd) },
    proration: line.proration,
    discount: line.discountId,
    ...linePricingFields((line.pricing ?? null) as LinePricing | null),
  };
}

/** A usage line's breakdown as kept when billed (docs/decisions.md §46), every field null on other lines. */
function linePricingFields(pricing: LinePricing | null) {
  return {
    tiers_mode: pricing && 'tiers' in pricing ? pricing.tiers_mode : null,
    // Lines billed before first_unit was kept read it as unknown.
    tiers:
      pricing && 'tiers' in pricing
        ? pricing.tiers.map((tier) => ({ ...tier, first_unit: tier.first_unit ?? null }))
        : null,
    transform_quantity: pricing && 'packages' in pricing ? pricing.transform_quantity : null,
    packages: pricing && 'packages' in pricing ? pricing.packages : null,
  };
}

/** Cents each discount took off the invoice (its discount lines' amounts, positive), in line order. */
function totalDiscountAmounts(lines: InvoiceLine[]): { amount: number; discount: string }[] {
  const byDiscount = new Map<string, number>();
  for (const line of [...lines].sort((a, b) => a.position - b.position)) {
    if (line.discountId === null) continue;
    byDiscount.set(line.discountId, (byDiscount.get(line.discountId) ?? 0) - Number(line.amount));
  }
  return [...byDiscount].map(([discount, amount]) => ({ amount, discount }));
}

export function toInvoiceObject(invoice: InvoiceWithLines): InvoiceObject {
  const amountDue = Number(invoice.amountDue);
  const amountPaid = Number(invoice.amountPaid);
  return {
    id: invoice.id,
    object: 'invoice',
    account_country: invoice.accountCountry,
    account_name: invoice.accountName,
    account_address: (invoice.accountAddress as Address | null) ?? null,
    account_email: invoice.accountEmail,
    account_phone: invoice.accountPhone,
    account_tax_id: invoice.accountTaxId,
    amount_due: amountDue,
    amount_paid: amountPaid,
    amount_remaining: amountDue - amountPaid,
    amount_refunded: Number(invoice.amountRefunded),
    dispute: (invoice.dispute as InvoiceDisputeObject | null) ?? null,
    applied_balance: Number(invoice.appliedBalance),
    pre_payment_credit_notes_amount: Number(invoice.prePaymentCreditNotesAmount),
    post_payment_credit_notes_amount: Number(invoice.postPaymentCreditNotesAmount),
    attempt_count: invoice.attemptCount,
    attempted: invoice.attemptCount > 0,
    billing_reason: invoice.billingReason,
    collection_method: columnValue(COLLECTION_METHODS, invoice.collectionMethod, 'invoices.collection_method'),
    created: toUnixSeconds(invoice.createdAt),
    updated_ms: updatedMsOf(invoice),
    currency: invoice.currency,
    customer: invoice.customerId,
    customer_address: (invoice.customerAddress as Address | null) ?? null,
    customer_email: invoice.customerEmail,
    customer_name: invoice.customerName,
    customer_phone: invoice.customerPhone,
    due_date: toUnixSeconds(invoice.dueDate),
    hosted_invoice_url: invoice.hostedLink ? hostedInvoiceUrl(invoice.id, invoice.hostedLink) : null,
    lines: [...invoice.lines]
      .sort((a, b) => a.position - b.position)
      .map((line) => toLineObject(line, invoice.currency)),
    number: invoice.number,
    paid: invoice.status === 'paid',
    payment_method: invoice.paymentMethodId,
    period_start: toUnixSeconds(invoice.periodStart),
    period_end: toUnixSeconds(invoice.periodEnd),
    status: columnValue(INVOICE_STATUSES, invoice.status, 'invoices.status'),
    status_transitions: {
      finalized_at: toUnixSeconds(invoice.finalizedAt),
      paid_at: toUnixSeconds(invoice.paidAt),
      voided_at: toUnixSeconds(invoice.voidedAt),
    },
    subscription: invoice.subscriptionId,
    subtotal: Number(invoice.subtotal),
    subtotal_excluding_tax: Number(invoice.subtotalExcludingTax),
    tax: Number(invoice.tax),
    total: Number(invoice.total),
    total_excluding_tax: Number(invoice.totalExcludingTax),
    total_taxes: invoiceTax(invoice),
    total_tax_amounts: invoice.totalTaxes as TaxAmountObject[],
    total_discount_amounts: totalDiscountAmounts(invoice.lines),
  };
}

/**
 * `total_taxes`, the contract's one object for the invoice's tax (docs/decisions.md §16): null without
 * a tax rate; one rate's sum as it is; several rates summed, named after the rate with the most tax.
 * Only the answer's shape: the amounts are those src/catalog/tax.ts computed and the invoice stores.
 */
function invoiceTax(invoice: InvoiceWithLines): TaxAmountObject | null {
  const perRate = invoice.totalTaxes as TaxAmountObject[];
  if (perRate.length === 0) return null;
  if (perRate.length === 1) return { ...perRate[0]! };
  const main = perRate.reduce((best, rate) => (Math.abs(rate.amount) > Math.abs(best.amount) ? rate : best));
  const taxedLines = invoice.lines.filter((line) => (line.taxAmounts as TaxAmountObject[]).length > 0);
  return {
    amount: perRate.reduce((sum, rate) => sum + rate.amount, 0),
    tax_behavior: main.tax_behavior,
    tax_rate: main.tax_rate,
    taxable_amount: taxedLines.reduce((sum, line) => sum + Number(line.amountExcludingTax), 0),
  };
}

/** How many of the customer's invoices are `status`. */
export function countCustomerInvoices(
  db: Db | Tx,
  accountId: string,
  customerId: string,
  status: string,
): Promise<number> {
  return db.invoice.count({ where: { accountId, customerId, status } });
}

/** The ids of the customer's draft invoices, oldest first. */
export function readCustomerDraftIds(db: Db | Tx, accountId: string, customerId: string): Promise<{ id: string }[]> {
  return db.invoice.findMany({
    where: { accountId, customerId, status: 'draft' },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
  });
}

/** The status of an invoice of the account, or null (another account's too). */
export function readInvoiceStatus(db: Db | Tx, accountId: string, id: string): Promise<Pick<Invoice, 'status'> | null> {
  return db.invoice.findFirst({ where: { id, accountId }, select: { status: true } });
}

/** An invoice of the account with its lines, or null (also for another account's invoice). */
export function findInvoiceRow(db: Db | Tx, accountId: string, id: string): Promise<InvoiceWithLines | null> {
  return db.invoice.findFirst({ where: { id, accountId }, include: INVOICE_INCLUDE });
}

/** The customer of the account's invoice `id`, or undefined (no such invoice in the account). */
export async function findInvoiceCustomerId(db: Db | Tx, accountId: string, id: string): Promise<string | undefined> {
  const invoice = await db.invoice.findFirst({ where: { id, accountId }, select: { customerId: true } });
  return invoice?.customerId;
}

/** The account's invoice numbered `number` (its unique index answers), or null. */
export async function findInvoiceByNumber(
  db: Db | Tx,
  accountId: string,
  number: string,
): Promise<InvoiceWithLines | null> {
  return db.invoice.findFirst({ where: { accountId, number }, include: INVOICE_INCLUDE });
}

const INVOICE_ID_BY_KEY: Statement = {
  name: 'invoice_id_by_key',
  text: 'SELECT id FROM invoices WHERE account_id = $1 AND idempotency_key = $2',
};

const INVOICE_MADE_BY_KEY: Statement = {
  name: 'invoice_made_by_key',
  text: 'SELECT id, total FROM invoices WHERE account_id = $1 AND idempotency_key = $2',
};

/** The id and total of the account's invoice made under `idempotencyKey`, or null. */
export async function findInvoiceMadeByKey(
  db: Queryable,
  accountId: string,
  idempotencyKey: string,
): Promise<{ id: string; total: number } | null> {
  const [row] = await queryRows<{ id: string; total: bigint | number }>(db, INVOICE_MADE_BY_KEY, [
    accountId,
    idempotencyKey,
  ]);
  return row ? { id: row.id, total: Number(row.total) } : null;
}

/** The id of the account's invoice made under `idempotencyKey`, if any (its unique index answers). */
export async function findInvoiceIdByKey(
  db: Queryable,
  accountId: string,
  idempotencyKey: string,
): Promise<string | undefined> {
  const [row] = await queryRows<{ id: string }>(db, INVOICE_ID_BY_KEY, [accountId, idempotencyKey]);
  return row?.id;
}

export const INVOICE_COLUMNS = modelColumns<Invoice>(Prisma.InvoiceScalarFieldEnum, {
  bigint: [
    'subtotal',
    'subtotalExcludingTax',
    'tax',
    'total',
    'totalExcludingTax',
    'amountDue',
    'amountPaid',
    'amountRefunded',
    'appliedBalance',
    'prePaymentCreditNotesAmount',
    'postPaymentCreditNotesAmount',
    'updatedMs',
  ],
  date: ['periodStart', 'periodEnd', 'createdAt', 'updatedAt'],
  'date?': ['dueDate', 'finalizedAt', 'paidAt', 'voidedAt'],
});

export const LINE_COLUMNS = modelColumns<InvoiceLine>(Prisma.InvoiceLineScalarFieldEnum, {
  bigint: ['unitAmount', 'amount', 'amountExcludingTax'],
  date: ['periodStart', 'periodEnd'],
});

/**
 * The lock and the read of lockInvoice in one statement (a third of the CPU of the lock and Prisma's
 * read with its lines: docs/performance.md; it runs two or three times in every payment).
 */
/** The invoice `i`'s hosted page link as a select-list item `hosted_link` (HostedLinkRef or null). */
export const HOSTED_LINK_SELECT = `(SELECT json_build_object('tokenSealed', h.token_sealed, 'keyId', h.key_id) FROM hosted_invoice_links h WHERE h.invoice_id = i.id) AS hosted_link`;

/** Invoices `i` with their lines and hosted link, one row each (invoiceWithLinesOfRow reads them). */
const INVOICE_WITH_LINES_SELECT = `SELECT ${selectList(INVOICE_COLUMNS, 'i')},
    (SELECT coalesce(json_agg(${jsonObjectOf(LINE_COLUMNS, 'l')} ORDER BY l.position), '[]') FROM invoice_lines l WHERE l.invoice_id = i.id) AS lines,
    ${HOSTED_LINK_SELECT}`;
const INVOICES_WITH_LINES = `${INVOICE_WITH_LINES_SELECT}
    FROM invoices i`;

type InvoiceWithLinesRow = Record<string, unknown> & {
  lines: Record<string, unknown>[];
  hosted_link: HostedLinkRef | null;
};

function invoiceWithLinesOfRow(row: InvoiceWithLinesRow): InvoiceWithLines {
  return {
    ...modelOfRow<Invoice>(INVOICE_COLUMNS, row),
    lines: row.lines.map((line) => modelOfRow<InvoiceLine>(LINE_COLUMNS, line)),
    hostedLink: row.hosted_link,
  };
}

const LOCK_INVOICE: Statement = {
  name: 'invoice_lock',
  text: `${INVOICES_WITH_LINES} WHERE i.id = $1 AND i.account_id = $2 FOR UPDATE OF i`,
};

/**
 * The account's invoice, locked FOR UPDATE until the caller's transaction ends (every state change goes through
 * here), or null when the account has no such invoice.
 */
export async function lockInvoiceRow(tx: AnyTx, accountId: string, id: string): Promise<InvoiceWithLines | null> {
  const [row] = await queryRows<InvoiceWithLinesRow>(tx, LOCK_INVOICE, [id, accountId]);
  return row ? invoiceWithLinesOfRow(row) : null;
}

/**
 * The lock of a payment's outcome: LOCK_INVOICE, and the prices of its lines not billed yet (read without a lock,
 * as markPricesBilled reads them; a price not found is among them) so a paid invoice's prices need no read of
 * their own in the settling transaction (docs/performance.md, "Twentieth round").
 */
const LOCK_INVOICE_FOR_PAYMENT: Statement = {
  name: 'invoice_lock_for_payment',
  text: `${INVOICE_WITH_LINES_SELECT},
    (SELECT coalesce(array_agg(DISTINCT l.price_id), '{}') FROM invoice_lines l
      LEFT JOIN prices p ON p.id = l.price_id AND p.account_id = i.account_id
      WHERE l.invoice_id = i.id AND l.price_id IS NOT NULL AND p.billed_at IS NULL) AS unbilled_price_ids
    FROM invoices i WHERE i.id = $1 AND i.account_id = $2 FOR UPDATE OF i`,
};

/** An invoice locked for its payment's outcome, with the ids of its lines' prices not billed when it was locked. */
export type InvoiceLockedForPayment = InvoiceWithLines & { unbilledPriceIds: string[] };

/** lockInvoiceRow, with the lines' prices not billed yet (LOCK_INVOICE_FOR_PAYMENT). */
export async function lockInvoiceRowForPayment(
  tx: AnyTx,
  accountId: string,
  id: string,
): Promise<InvoiceLockedForPayment | null> {
  const [row] = await queryRows<InvoiceWithLinesRow & { unbilled_price_ids: string[] }>(tx, LOCK_INVOICE_FOR_PAYMENT, [
    id,
    accountId,
  ]);
  return row ? { ...invoiceWithLinesOfRow(row), unbilledPriceIds: row.unbilled_price_ids } : null;
}

const SUBSCRIPTION_INVOICES_MADE: Statement = {
  name: 'invoice_subscription_made',
  text: `${INVOICES_WITH_LINES} WHERE i.account_id = $1 AND i.subscription_id = $2 AND i.billing_reason = $3
    AND i.status <> 'void' AND i.created_at >= $4 AND ($5::timestamptz IS NULL OR i.created_at < $5)
    ORDER BY i.created_at, i.id`,
};

/** A subscription's invoices for `billingReason` made in [from, to) (to null: since from), void ones left out, oldest first. */
export async function readSubscriptionInvoicesMade(
  db: Queryable,
  accountId: string,
  subscriptionId: string,
  billingReason: string,
  made: { from: Date; to: Date | null },
): Promise<InvoiceWithLines[]> {
  const rows = await queryRows<InvoiceWithLinesRow>(db, SUBSCRIPTION_INVOICES_MADE, [
    accountId,
    subscriptionId,
    billingReason,
    made.from,
    made.to,
  ]);
  return rows.map(invoiceWithLinesOfRow);
}

/** What a state change of an invoice sets (never its identity, lines or version, which its trigger bumps). */
export type InvoiceChange = Partial<
  Omit<Invoice, 'id' | 'accountId' | 'updatedAt' | 'updatedMs' | 'customerAddress' | 'accountAddress' | 'dispute'>
> & {
  customerAddress?: Prisma.InputJsonValue;
  accountAddress?: Prisma.InputJsonValue | null;
  dispute?: Prisma.InputJsonValue;
};

/**
 * Sets `change` on an invoice the caller's transaction has locked (lockInvoiceRow) and answers it with its
 * lines, which a change of the invoice leaves as they are: one raw statement, where Prisma's update with
 * its lines costs three and about five times the CPU (docs/performance.md). Undefined fields are left
 * as they are; `updated_at` is set as Prisma's @updatedAt does (the wall clock).
 */
export async function updateLockedInvoice(
  tx: AnyTx,
  invoice: InvoiceWithLines,
  change: InvoiceChange,
): Promise<InvoiceWithLines> {
  // updated_at as Prisma's @updatedAt sets it on the model's writes: the wall clock, not a test clock's.
  const set = jsonRecord({ updatedAt: new Date(), ...change });
  const statement = statementOf(
    'invoice_update',
    `UPDATE invoices i ${setFromRecord('invoices', Object.keys(set))}
     WHERE i.id = $2 AND i.account_id = $3 RETURNING ${selectList(INVOICE_COLUMNS, 'i')}`,
  );
  const [row] = await queryRows<Record<string, unknown>>(tx, statement, [
    JSON.stringify(set),
    invoice.id,
    invoice.accountId,
  ]);
  // The caller holds the row's lock, so the row is there: a missing one is a broken invariant, not a client's 404.
  if (!row) throw new Error(`Invoice ${invoice.id} is gone while its lock is held.`);
  return { ...modelOfRow<Invoice>(INVOICE_COLUMNS, row), lines: invoice.lines, hostedLink: invoice.hostedLink };
}

/** What a new invoice sets: every field but those its columns' defaults give (amounts paid and refunded, attempts, number, times). */
export type NewInvoice = Omit<
  Invoice,
  | 'number'
  | 'amountPaid'
  | 'amountRefunded'
  | 'appliedBalance'
  | 'prePaymentCreditNotesAmount'
  | 'postPaymentCreditNotesAmount'
  | 'attemptCount'
  | 'paymentMethodId'
  | 'finalizedAt'
  | 'paidAt'
  | 'voidedAt'
  | 'updatedAt'
  | 'updatedMs'
  | 'customerAddress'
  | 'accountAddress'
  | 'totalTaxes'
  | 'dispute'
> & {
  customerAddress?: Prisma.InputJsonValue;
  accountAddress: Prisma.InputJsonValue | null;
  totalTaxes: Prisma.InputJsonValue;
};
export type NewInvoiceLine = Omit<InvoiceLine, 'invoiceId' | 'taxAmounts' | 'pricing'> & {
  taxAmounts: Prisma.InputJsonValue;
  pricing?: Prisma.InputJsonValue | null;
};

const INSERT_FIELDS = Object.keys(INVOICE_COLUMNS).filter(
  (field) =>
    ![
      'number',
      'amountPaid',
      'amountRefunded',
      'appliedBalance',
      'prePaymentCreditNotesAmount',
      'postPaymentCreditNotesAmount',
      'attemptCount',
      'paymentMethodId',
      'finalizedAt',
      'paidAt',
      'voidedAt',
      'updatedMs',
      'dispute',
    ].includes(field),
);
const LINE_FIELDS = Object.keys(LINE_COLUMNS);
const columnList = (fields: string[]) => fields.map(columnOfField).join(', ');

/**
 * A new invoice and its lines in one statement, answered as written (Prisma's nested create makes four
 * statements at about five times the CPU: docs/performance.md); `fields` the row's columns written, `link` a
 * further step of the statement (the finalized invoice's hosted link).
 */
const insertInvoiceText = (fields: string[], link = '', numbered = '') => `WITH ${numbered}inv AS (
      INSERT INTO invoices AS i (${columnList(fields)})
      SELECT ${columnList(fields)} FROM ${numbered ? 'numbered, ' : ''}jsonb_populate_record(NULL::invoices, $1::jsonb${numbered ? ' || numbered.taken' : ''})
      RETURNING ${selectList(INVOICE_COLUMNS, 'i')}
    ), lines AS (
      INSERT INTO invoice_lines AS l (${columnList(LINE_FIELDS)})
      SELECT ${columnList(LINE_FIELDS)} FROM jsonb_populate_recordset(NULL::invoice_lines, $2::jsonb)
      RETURNING l.position, ${jsonObjectOf(LINE_COLUMNS, 'l')} AS line
    )${link}
    SELECT inv.*, (SELECT coalesce(json_agg(lines.line ORDER BY lines.position), '[]') FROM lines) AS lines FROM inv`;

const INSERT_INVOICE: Statement = { name: 'invoice_insert', text: insertInvoiceText(INSERT_FIELDS) };

export async function insertInvoiceWithLines(
  tx: AnyTx,
  invoice: NewInvoice,
  lines: NewInvoiceLine[],
): Promise<InvoiceWithLines> {
  const [row] = await queryRows<Record<string, unknown> & { lines: Record<string, unknown>[] }>(tx, INSERT_INVOICE, [
    JSON.stringify(jsonRecord({ ...invoice, updatedAt: new Date() })), // @updatedAt's wall clock, as above
    JSON.stringify(lines.map((line) => jsonRecord({ ...line, invoiceId: invoice.id }))),
  ]);
  return {
    ...modelOfRow<Invoice>(INVOICE_COLUMNS, row!),
    lines: row!.lines.map((line) => modelOfRow<InvoiceLine>(LINE_COLUMNS, line)),
  };
}

/**
 * The invoice and lines insertInvoiceWithLines would answer for `invoice` and `lines`, not written: every column a
 * new invoice leaves to its default at that default (INSERT_FIELDS), `updated_ms` the wall clock's milliseconds as
 * the bump_updated_ms trigger sets it on insert. For the upcoming invoice's preview, which showed the draft written
 * and rolled back (docs/performance.md, "The upcoming invoice's query"). A column added to invoices fails the
 * typecheck here until its default is given.
 */
export function unwrittenInvoiceWithLines(invoice: NewInvoice, lines: NewInvoiceLine[]): InvoiceWithLines {
  const now = new Date();
  // The JSON columns' values are the billing code's plain objects; jsonb would drop an undefined member, as the
  // answer's JSON does.
  const json = (value: Prisma.InputJsonValue | null | undefined) => (value ?? null) as Prisma.JsonValue;
  return {
    ...invoice,
    number: null,
    amountPaid: 0n,
    amountRefunded: 0n,
    appliedBalance: 0n,
    prePaymentCreditNotesAmount: 0n,
    postPaymentCreditNotesAmount: 0n,
    attemptCount: 0,
    paymentMethodId: null,
    finalizedAt: null,
    paidAt: null,
    voidedAt: null,
    dispute: null,
    customerAddress: json(invoice.customerAddress),
    accountAddress: json(invoice.accountAddress),
    totalTaxes: json(invoice.totalTaxes),
    updatedAt: now,
    updatedMs: BigInt(now.getTime()),
    lines: lines.map((line) => ({
      ...line,
      invoiceId: invoice.id,
      taxAmounts: json(line.taxAmounts),
      pricing: json(line.pricing),
    })),
  };
}

/** What an invoice made already finalized sets besides a draft's fields (insertFinalizedInvoiceWithLines). */
export type FinalizedFields = Pick<Invoice, 'number' | 'finalizedAt' | 'attemptCount'>;

const FINALIZED_FIELDS = [...INSERT_FIELDS, 'number', 'finalizedAt', 'attemptCount'];

/**
 * INSERT_INVOICE for an invoice written already open (its number, finalized_at and attempt count set) with its
 * hosted page's link: one write of the row where a draft is inserted, then finalized, then its attempt counted
 * (docs/performance.md, "Eighteenth round").
 */
const INSERT_FINALIZED_INVOICE: Statement = {
  name: 'invoice_insert_finalized',
  text: insertInvoiceText(
    FINALIZED_FIELDS,
    `, link AS (
      INSERT INTO hosted_invoice_links (invoice_id, account_id, token_hash, token_sealed, key_id, expires_at)
      SELECT inv.id, inv."accountId", $3, $4, $5, $6 FROM inv
    )`,
    // The account's next number taken by the insert itself (as allocateInvoiceNumber's upsert, `INV-` and at
    // least six digits): the counter's row is locked from this statement to the commit, one round trip less
    // than taking it first (docs/performance.md, "Twenty-second round").
    `numbered AS (
      INSERT INTO invoice_number_counters AS c (account_id, last_number) VALUES ($1::jsonb->>'account_id', 1)
      ON CONFLICT (account_id) DO UPDATE SET last_number = c.last_number + 1
      RETURNING jsonb_build_object('number', 'INV-' || lpad(c.last_number::text, greatest(6, length(c.last_number::text)), '0')) AS taken
    ), `,
  ),
};

export async function insertFinalizedInvoiceWithLines(
  tx: AnyTx,
  invoice: NewInvoice & Omit<FinalizedFields, 'number'>,
  lines: NewInvoiceLine[],
  link: NewHostedLink,
): Promise<InvoiceWithLines> {
  const [row] = await queryRows<Record<string, unknown> & { lines: Record<string, unknown>[] }>(
    tx,
    INSERT_FINALIZED_INVOICE,
    [
      JSON.stringify(jsonRecord({ ...invoice, updatedAt: new Date() })), // @updatedAt's wall clock, as above
      JSON.stringify(lines.map((line) => jsonRecord({ ...line, invoiceId: invoice.id }))),
      link.tokenHash,
      link.tokenSealed,
      link.keyId,
      link.expiresAt,
    ],
  );
  return {
    ...modelOfRow<Invoice>(INVOICE_COLUMNS, row!),
    lines: row!.lines.map((line) => modelOfRow<InvoiceLine>(LINE_COLUMNS, line)),
    hostedLink: { tokenSealed: link.tokenSealed, keyId: link.keyId },
  };
}

const INVOICE_NUMBERS: Statement = {
  name: 'invoice_numbers',
  text: 'SELECT id, number AS name FROM invoices WHERE account_id = $1 AND id = ANY($2::text[])',
};

/** `objects` with `invoice_number` beside their `invoice`, once it has one (docs/api.md, "Names on list rows"). */
export function withInvoiceNumbers<T extends { invoice: string | null; invoice_number?: string }>(
  db: Queryable,
  accountId: string,
  objects: T[],
) {
  return withNamesFrom(db, INVOICE_NUMBERS, accountId, objects, 'invoice', 'invoice_number');
}

const PRODUCT_NAME: Statement = {
  name: 'product_name',
  text: 'SELECT name FROM products WHERE id = $1 AND account_id = $2',
};

/** The name an invoice line shows of its product (undefined when the row is gone). */
export async function readProductName(
  db: Queryable,
  accountId: string,
  productId: string,
): Promise<{ name: string } | undefined> {
  const [product] = await queryRows<{ name: string }>(db, PRODUCT_NAME, [productId, accountId]);
  return product;
}

/**
 * Cents of the invoice's issued credit notes given back other than by a card refund (to the customer's
 * balance or settled outside): with amount_refunded, what a paid invoice has given back.
 */
export async function creditedBesidesCard(tx: Db | Tx, accountId: string, invoiceId: string): Promise<bigint> {
  const sum = await tx.creditNote.aggregate({
    where: { accountId, invoiceId, status: 'issued', refundTo: { in: ['customer_balance', 'outside'] } },
    _sum: { amount: true },
  });
  return sum._sum.amount ?? 0n;
}

/**
 * What a paid invoice can still give back, in any form (docs/decisions.md §22): what was collected
 * (card and customer balance) less what card refunds and other credit notes gave back already. A
 * refund in flight is not counted: callers refuse to credit while one is.
 */
export async function paidInvoiceCreditable(tx: Db | Tx, invoice: InvoiceWithLines): Promise<bigint> {
  const besides = await creditedBesidesCard(tx, invoice.accountId, invoice.id);
  return invoice.amountPaid + invoice.appliedBalance - invoice.amountRefunded - besides;
}

const PERIOD_INVOICE_AT: Statement = {
  name: 'invoice_period_at',
  text: `${INVOICES_WITH_LINES} WHERE i.account_id = $1 AND i.subscription_id = $2
    AND i.billing_reason IN ('subscription_create', 'subscription_cycle') AND i.period_start <= $3
    ORDER BY i.period_start DESC, i.created_at DESC LIMIT 1`,
};

const PERIOD_INVOICE_AFTER: Statement = {
  name: 'invoice_period_after',
  text: `${INVOICES_WITH_LINES} WHERE i.account_id = $1 AND i.subscription_id = $2
    AND i.billing_reason IN ('subscription_create', 'subscription_cycle') AND i.period_start > $3 AND i.status <> 'void'
    ORDER BY i.period_start, i.created_at LIMIT 1`,
};

/**
 * The invoice of the subscription's period in force at `at` (the latest period invoice started then or
 * before, void ones included: a voided period holds nothing) and the next period's, each null when none.
 */
export async function readPeriodInvoicesAt(
  db: Queryable,
  accountId: string,
  subscriptionId: string,
  at: Date,
): Promise<{ current: InvoiceWithLines | null; next: InvoiceWithLines | null }> {
  const [row] = await queryRows<InvoiceWithLinesRow>(db, PERIOD_INVOICE_AT, [accountId, subscriptionId, at]);
  if (!row) return { current: null, next: null };
  const current = invoiceWithLinesOfRow(row);
  const [next] = await queryRows<InvoiceWithLinesRow>(db, PERIOD_INVOICE_AFTER, [
    accountId,
    subscriptionId,
    current.periodStart,
  ]);
  return { current, next: next ? invoiceWithLinesOfRow(next) : null };
}

const GIVEN_BACK_BESIDES_REFUNDED: Statement = {
  name: 'invoice_given_back_besides_refunded',
  text: `SELECT (SELECT coalesce(sum(amount), 0) FROM credit_notes
      WHERE account_id = $1 AND invoice_id = $2 AND status = 'issued' AND refund_to IN ('customer_balance', 'outside'))
    - (SELECT coalesce(sum(amount), 0) FROM transactions
      WHERE account_id = $1 AND invoice_id = $2 AND type = 'refund' AND status = 'pending') AS "cents"`,
};

/**
 * Cents a paid invoice has given back or is giving back: card refunds (settled, and in flight at the
 * gateway) and credit notes to the customer's balance or settled outside.
 */
export async function paidInvoiceGivenBack(db: Queryable, invoice: InvoiceWithLines): Promise<bigint> {
  const [row] = await queryRows<{ cents: string | number }>(db, GIVEN_BACK_BESIDES_REFUNDED, [
    invoice.accountId,
    invoice.id,
  ]);
  return invoice.amountRefunded + BigInt(row!.cents);
}

/** The invoice's refund made under `attemptKey` (its ledger key), if any. */
export function findRefundByKey(
  db: Db | Tx,
  accountId: string,
  invoiceId: string,
  attemptKey: string,
): Promise<Transaction | null> {
  return db.transaction.findFirst({ where: { accountId, invoiceId, type: 'refund', attemptKey } });
}

/** The invoice's payment attempt made under the caller's `attemptKey`, if any. */
export function findPaymentByKey(
  db: Db,
  accountId: string,
  invoiceId: string,
  attemptKey: string,
): Promise<Transaction | null> {
  return db.transaction.findFirst({ where: { accountId, invoiceId, type: 'payment', attemptKey } });
}

/** The invoice's oldest refund in flight (pending or unknown at the gateway), if any. */
export function oldestRefundInFlight(tx: Tx, accountId: string, invoiceId: string): Promise<Transaction | null> {
  return tx.transaction.findFirst({
    where: { accountId, invoiceId, type: 'refund', status: { in: ['pending', 'unknown'] } },
    orderBy: { createdAt: 'asc' },
  });
}

/** The invoice's latest succeeded payment at the gateway (the card payment a refund gives back), if any. */
export function latestGatewayPayment(tx: Tx, accountId: string, invoiceId: string): Promise<Transaction | null> {
  return tx.transaction.findFirst({
    where: { accountId, invoiceId, type: 'payment', status: 'succeeded', gatewayReference: { not: null } },
    orderBy: { createdAt: 'desc' },
  });
}

/** How many refunds of the invoice the ledger holds, whatever their outcome. */
export function countInvoiceRefunds(tx: Tx, accountId: string, invoiceId: string): Promise<number> {
  return tx.transaction.count({ where: { accountId, invoiceId, type: 'refund' } });
}

/** Sets the cents refunded of an invoice the caller's transaction has locked. */
export async function setAmountRefunded(tx: Tx, invoiceId: string, amountRefunded: bigint): Promise<void> {
  await tx.invoice.update({ where: { id: invoiceId }, data: { amountRefunded } });
}

/** What a subscription's invoices billed of a metered price for one usage period (docs/decisions.md §43). */
export interface BilledUsage {
  periodStart: Date;
  periodEnd: Date;
  /** The usage billed for the period: its line's quantity and those of its late lines. */
  quantity: number;
}

// Every invoice counts, voided ones too: a voided invoice's usage was forgiven, not left to bill again.
const LAST_BILLED_USAGE: Statement = {
  name: 'invoice_last_billed_usage',
  text: `SELECT l.period_start, l.period_end, sum(l.quantity)::text AS quantity
    FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
    WHERE i.account_id = $1 AND i.subscription_id = $2 AND l.price_id = $3 AND NOT l.proration
      AND l.period_end <= $4::timestamptz
    GROUP BY l.period_start, l.period_end ORDER BY l.period_start DESC LIMIT 1`,
};

// Threshold invoices bill a period's usage in parts, each line from the period's start (docs/decisions.md §43).
const USAGE_BILLED_FROM: Statement = {
  name: 'invoice_usage_billed_from',
  text: `SELECT coalesce(sum(l.quantity), 0)::text AS quantity
    FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
    WHERE i.account_id = $1 AND i.subscription_id = $2 AND l.price_id = $3 AND NOT l.proration
      AND l.period_start = $4::timestamptz`,
};

/**
 * The usage of metered price `priceId` a subscription's invoices billed on lines from `periodStart`: what
 * threshold invoices billed of the period beginning then (0 when none did), voided invoices included.
 */
export async function usageBilledFrom(
  db: Queryable,
  accountId: string,
  subscriptionId: string,
  priceId: string,
  periodStart: Date,
): Promise<number> {
  const [row] = await queryRows<{ quantity: string }>(db, USAGE_BILLED_FROM, [
    accountId,
    subscriptionId,
    priceId,
    periodStart.toISOString(),
  ]);
  return Number(row?.quantity ?? 0);
}

// LAST_BILLED_USAGE ($1-$4) and USAGE_BILLED_FROM's sum ($5 the period's start) in one statement.
const BILLED_USAGE_OF_PERIOD: Statement = {
  name: 'invoice_billed_usage_of_period',
  text: `SELECT last.period_start, last.period_end, last.quantity,
      (SELECT coalesce(sum(l.quantity), 0)::text FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
        WHERE i.account_id = $1 AND i.subscription_id = $2 AND l.price_id = $3 AND NOT l.proration
          AND l.period_start = $5::timestamptz) AS billed_from
    FROM (SELECT 1) one LEFT JOIN LATERAL (${LAST_BILLED_USAGE.text}) last ON true`,
};

/**
 * What a subscription's invoices billed of metered price `priceId` before a period is billed, in one statement:
 * `last`, the last usage period they billed ending by `before` (null: none), and `billedFrom`, what they billed on
 * lines from `from` (usageBilledFrom: threshold invoices' parts of the period beginning then, 0 when none did).
 */
export async function billedUsageBeforePeriod(
  db: Queryable,
  accountId: string,
  subscriptionId: string,
  priceId: string,
  at: { before: Date; from: Date },
): Promise<{ last: BilledUsage | null; billedFrom: number }> {
  const [row] = await queryRows<{
    period_start: Date | null;
    period_end: Date | null;
    quantity: string | null;
    billed_from: string;
  }>(db, BILLED_USAGE_OF_PERIOD, [accountId, subscriptionId, priceId, at.before.toISOString(), at.from.toISOString()]);
  const last =
    row!.period_start !== null
      ? {
          periodStart: new Date(row!.period_start),
          periodEnd: new Date(row!.period_end!),
          quantity: Number(row!.quantity),
        }
      : null;
  return { last, billedFrom: Number(row!.billed_from) };
}
