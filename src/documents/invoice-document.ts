import type { Address } from '../customers';
import type { InvoiceObject } from '../invoices';
import { formatMoney } from '../lib/money';

type InvoiceLineObject = InvoiceObject['lines'][number];

/**
 * Everything an invoice's document shows (the PDF, the email's body, the hosted page): the invoice as
 * the API answers it, who issues it, where it ships, and the names of its tax rates. Pure data, so a
 * renderer needs no database.
 */
export interface InvoiceDocument {
  invoice: InvoiceObject;
  /**
   * Who issues it: the name the invoice was issued under, the account's time zone and From address, and the
   * seller's lines (address, support email and phone, tax id) as the invoice keeps them (sellerLines).
   */
  account: { name: string; timeZone: string; email: string | null; lines: string[] };
  /** The customer's shipping as the customer holds it when the document is made (the invoice keeps no copy). */
  shipping: { name: string; phone: string | null; address: Address } | null;
  /** Tax rate id -> what the document calls it, e.g. "Sales tax 8.25%". */
  taxRateNames: Record<string, string>;
}

/** The amounts block, in order: subtotal, discount (if any), one row per tax rate, total, paid, due. */
export interface SummaryRow {
  label: string;
  amount: string;
  strong?: boolean;
}

/** What the helpers below read of a document: the invoice (its currency, its customer) and the issuer's time zone. */
export type DocumentBasis = Pick<InvoiceDocument, 'invoice' | 'account'>;

export function money(document: DocumentBasis, cents: number): string {
  return formatMoney(cents, document.invoice.currency);
}

/** A Unix-seconds date in the account's time zone, e.g. "24 November 2026". */
export function documentDate(document: DocumentBasis, seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '';
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: document.account.timeZone }).format(
    new Date(seconds * 1000),
  );
}

export function summaryRows(document: InvoiceDocument): SummaryRow[] {
  const { invoice } = document;
  const taxes = invoice.total_tax_amounts.map((tax) => ({
    label: `${document.taxRateNames[tax.tax_rate] ?? tax.tax_rate}${tax.tax_behavior === 'inclusive' ? ' (included)' : ''}`,
    amount: money(document, tax.amount),
  }));
  // The subtotal is before discount; what discounts took off follows it (docs/api.md, "Coupons and discounts").
  const discounted = invoice.total_discount_amounts.reduce((sum, each) => sum + each.amount, 0);
  return [
    { label: 'Subtotal', amount: money(document, invoice.subtotal) },
    ...(discounted > 0 ? [{ label: 'Discount', amount: money(document, -discounted) }] : []),
    ...taxes,
    { label: 'Total', amount: money(document, invoice.total), strong: true },
    { label: 'Amount paid', amount: money(document, invoice.amount_paid) },
    ...(invoice.amount_refunded > 0 ? [{ label: 'Refunded', amount: money(document, invoice.amount_refunded) }] : []),
    { label: 'Amount due', amount: money(document, invoice.amount_remaining), strong: true },
  ];
}

/** An address as lines, empty parts left out: "1 Main St", "Apt 2", "Springfield, IL 62701", "US". */
export function addressLines(address: Address | null | undefined): string[] {
  if (!address) return [];
  const cityLine = [address.city, [address.state, address.postal_code].filter(Boolean).join(' ')]
    .filter(Boolean)
    .join(', ');
  return [address.line1, address.line2, cityLine, address.country].filter((part): part is string => !!part);
}

/** The customer's block: name, email, phone, address. */
export function billToLines(document: DocumentBasis): string[] {
  const { invoice } = document;
  return [
    invoice.customer_name,
    ...addressLines(invoice.customer_address),
    invoice.customer_email,
    invoice.customer_phone,
  ].filter((part): part is string => !!part);
}

/**
 * The seller's block under its name, as the invoice was issued (docs/api.md, "Business details"): its address,
 * support email and phone, and tax id, the parts not set left out.
 */
export function sellerLines(invoice: InvoiceObject): string[] {
  return [
    ...addressLines(invoice.account_address),
    invoice.account_email,
    invoice.account_phone,
    invoice.account_tax_id ? `Tax ID ${invoice.account_tax_id}` : null,
  ].filter((part): part is string => !!part);
}

export function shipToLines(document: InvoiceDocument): string[] {
  const { shipping } = document;
  if (!shipping) return [];
  return [shipping.name, ...addressLines(shipping.address), shipping.phone].filter((part): part is string => !!part);
}

/** "Invoice INV-000001" and its dates as label/value pairs. */
export function headlineFacts(document: InvoiceDocument): { label: string; value: string }[] {
  const { invoice } = document;
  const facts = [
    { label: 'Invoice number', value: invoice.number ?? '' },
    {
      label: 'Date of issue',
      value: documentDate(document, invoice.status_transitions.finalized_at ?? invoice.created),
    },
  ];
  if (invoice.due_date) facts.push({ label: 'Date due', value: documentDate(document, invoice.due_date) });
  if (invoice.subscription && invoice.period_end > invoice.period_start)
    facts.push({
      label: 'Period',
      value: `${documentDate(document, invoice.period_start)} to ${documentDate(document, invoice.period_end)}`,
    });
  if (invoice.status === 'paid' && invoice.status_transitions.paid_at)
    facts.push({ label: 'Paid on', value: documentDate(document, invoice.status_transitions.paid_at) });
  if (invoice.status === 'void') facts.push({ label: 'Status', value: 'Void' });
  return facts;
}

/** A part of a line's amount shown under it: a tier or the packages it billed. */
export interface LineDetail {
  label: string;
  amount: string;
}

const count = (units: number) => units.toLocaleString('en-US');

/**
 * How a usage line was priced, as the PDF and the hosted page show it under the line (docs/decisions.md §46):
 * "First 1,000 units at $0.00", "Next 4,000 units at $0.02 + $10.00 flat fee" (graduated), "All 12,000 units at
 * $0.01" (volume; a late line's tier taken back "Less 900 units at $0.05"), "3 packages of 1,000 units at $2.50";
 * a late or remainder graduated line starts at the units it adds: "Units 101-150 at $0.05", then "Next ...".
 * `format` writes cents in the invoice's currency. None for other lines.
 */
export function pricingDetails(line: InvoiceLineObject, format: (cents: number) => string): LineDetail[] {
  if (line.packages !== null && line.transform_quantity)
    return [
      {
        label: `${count(line.packages)} package${line.packages === 1 ? '' : 's'} of ${count(line.transform_quantity.divide_by)} units at ${format(line.unit_amount)}`,
        amount: format(line.amount),
      },
    ];
  const tiers = line.tiers ?? [];
  return tiers.map((tier, index) => {
    const flat = tier.flat_amount !== 0 ? ` + ${format(tier.flat_amount)} flat fee` : '';
    const units = `${count(Math.abs(tier.quantity))} unit${Math.abs(tier.quantity) === 1 ? '' : 's'}`;
    const at = ` at ${format(tier.unit_amount)}${flat}`;
    const amount = format(tier.amount);
    if (tier.quantity < 0) return { label: `Less ${units}${at}`, amount };
    if (line.tiers_mode === 'volume') return { label: `All ${units}${at}`, amount };
    const previous = tiers[index - 1];
    const follows =
      previous !== undefined &&
      (tier.first_unit === null ||
        previous.first_unit === null ||
        previous.first_unit + previous.quantity === tier.first_unit);
    if (follows) return { label: `Next ${units}${at}`, amount };
    // A late or remainder line starts past the units billed before it: it names the units it bills.
    if (tier.first_unit !== null && tier.first_unit > 1) {
      const last = tier.first_unit + tier.quantity - 1;
      const span = last === tier.first_unit ? `Unit ${count(last)}` : `Units ${count(tier.first_unit)}-${count(last)}`;
      return { label: `${span}${at}`, amount };
    }
    return { label: `First ${units}${at}`, amount };
  });
}

/**
 * A line's unit price as the documents show it: none for a tiered line, whose tiers say it; a package line's per
 * package ("$2.50 per 1,000"), as its quantity counts units.
 */
export function unitPrice(line: InvoiceLineObject, format: (cents: number) => string): string {
  if (line.tiers_mode !== null) return '';
  if (line.transform_quantity) return `${format(line.unit_amount)} per ${count(line.transform_quantity.divide_by)}`;
  return format(line.unit_amount);
}
