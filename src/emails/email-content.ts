import {
  addressLines,
  billToLines,
  documentDate,
  money,
  shipToLines,
  summaryRows,
  type InvoiceDocument,
  type SummaryRow,
} from '../documents';
import type { Address } from '../customers';
import { formatMoney } from '../lib/money';
import type { InvoiceEmailKind, ReminderEmailKind } from './email.schemas';

/** The button colour when the account chose none. */
export const DEFAULT_BRAND_COLOR = '#1f6feb';

/**
 * Links an email shows when they are given: the invoice's hosted page (`hosted_invoice_url`) and the
 * page where the customer updates the card. Neither exists in this module: the caller passes them.
 */
export interface EmailLinks {
  hostedInvoiceUrl?: string;
  updatePaymentMethodUrl?: string;
}

export interface EmailContent {
  subject: string;
  html: string;
  text: string;
}

/** The customer as an email addresses them: the blocks "Bill to" and "Ship to". */
export interface EmailRecipient {
  name: string | null;
  email: string | null;
  phone: string | null;
  address: Address | null;
  shipping: { name: string; phone: string | null; address: Address } | null;
}

/** What every email says, in the order it says it; rendered as HTML and as plain text by renderEmail. */
export interface EmailBody {
  subject: string;
  accountName: string;
  headline: string;
  lead: string;
  facts: { label: string; value: string }[];
  lines: { description: string; quantity?: number; amount: string }[];
  summary: SummaryRow[];
  billTo: string[];
  shipTo: string[];
  /** The seller's block (address, support email and phone, tax id) when the document has one. */
  from?: string[];
  action?: { label: string; url: string } | undefined | '';
  /** The account's colour (`brand_color`, #rrggbb): the account's name and the button. */
  color?: string | null;
  /** The last line; unset: how to reach the account (a reply). */
  footer?: string;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** What each kind says above the invoice's details. */
function opening(
  kind: InvoiceEmailKind,
  document: InvoiceDocument,
): { subject: string; headline: string; lead: string } {
  const { invoice, account } = document;
  const number = invoice.number ?? '';
  switch (kind) {
    case 'invoice':
      return {
        subject: `Invoice ${number} from ${account.name}`,
        headline: `${money(document, invoice.amount_remaining)} due${invoice.due_date ? ` ${documentDate(document, invoice.due_date)}` : ''}`,
        lead: `${account.name} sent you invoice ${number}. The invoice is attached as a PDF.`,
      };
    case 'receipt':
      return {
        subject: `Receipt for invoice ${number} from ${account.name}`,
        headline: `${money(document, invoice.amount_paid)} paid`,
        lead: `Thank you: ${account.name} received your payment for invoice ${number}${invoice.status_transitions.paid_at ? ` on ${documentDate(document, invoice.status_transitions.paid_at)}` : ''}. The paid invoice is attached as a PDF.`,
      };
    case 'payment_failed':
      return {
        subject: `Payment failed for invoice ${number} from ${account.name}`,
        headline: `${money(document, invoice.amount_remaining)} could not be charged`,
        lead: `We could not charge your payment method for invoice ${number} from ${account.name}. We will try again; to avoid an interruption, please update your payment method.`,
      };
    case 'payment_action_required':
      return {
        subject: `Confirm your payment for invoice ${number} from ${account.name}`,
        headline: `${money(document, invoice.amount_remaining)} waits for your confirmation`,
        lead: `Your bank asks you to confirm the payment of invoice ${number} from ${account.name} before it goes through. Open the invoice and authenticate the payment; nothing is charged until you do.`,
      };
  }
}

/** What the button to the hosted invoice page says. */
function actionLabel(kind: InvoiceEmailKind, status: InvoiceDocument['invoice']['status']): string {
  if (kind === 'payment_action_required') return 'Authenticate payment';
  return kind === 'invoice' && status === 'open' ? 'View and pay invoice' : 'View invoice';
}

/**
 * The email of `kind` for the invoice, as HTML (inline styles and tables, which mail readers keep)
 * and as plain text saying the same: the account's name, the amounts, the lines, the customer's
 * address and shipping, and the links given.
 */
export function invoiceEmail(
  kind: InvoiceEmailKind,
  document: InvoiceDocument,
  links: EmailLinks = {},
  color?: string | null,
): EmailContent {
  const { invoice, account } = document;
  const action =
    kind === 'payment_failed'
      ? links.updatePaymentMethodUrl && { label: 'Update payment method', url: links.updatePaymentMethodUrl }
      : links.hostedInvoiceUrl && { label: actionLabel(kind, invoice.status), url: links.hostedInvoiceUrl };
  return renderEmail({
    ...opening(kind, document),
    accountName: account.name,
    facts: [
      { label: 'Invoice number', value: invoice.number ?? '' },
      ...(invoice.due_date ? [{ label: 'Due', value: documentDate(document, invoice.due_date) }] : []),
    ],
    lines: invoice.lines.map((line) => ({
      description: line.description ?? '',
      quantity: line.quantity,
      amount: money(document, line.amount),
    })),
    summary: summaryRows(document),
    billTo: billToLines(document),
    shipTo: shipToLines(document),
    from: account.lines.length > 0 ? [account.name, ...account.lines] : [],
    action,
    color,
    ...(invoice.account_email || invoice.account_phone ? { footer: supportFooter(invoice) } : {}),
  });
}

/** How the customer reaches the seller about an invoice, when the seller gave a support email or phone. */
function supportFooter(invoice: InvoiceDocument['invoice']): string {
  const ways = [
    invoice.account_email ? `write to ${invoice.account_email}` : null,
    invoice.account_phone ? `call ${invoice.account_phone}` : null,
  ].filter((way): way is string => way !== null);
  const said = ways.join(' or ');
  return `Questions? ${said[0]!.toUpperCase()}${said.slice(1)}.`;
}

/** The customer's blocks, as the invoice's document shows them (name, address, email, phone; shipping). */
function recipientBlocks(customer: EmailRecipient): { billTo: string[]; shipTo: string[] } {
  const present = (part: string | null | undefined): part is string => !!part;
  return {
    billTo: [customer.name, ...addressLines(customer.address), customer.email, customer.phone].filter(present),
    shipTo: customer.shipping
      ? [customer.shipping.name, ...addressLines(customer.shipping.address), customer.shipping.phone].filter(present)
      : [],
  };
}

function longDate(seconds: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone }).format(new Date(seconds * 1000));
}

/**
 * What a reminder states, fixed when it is queued (docs/decisions.md §31): the moment (the renewal, or
 * the trial's end), and the invoice that will be made then, as GET /invoices/upcoming would answer it.
 */
export interface ReminderDetails {
  /** Unix seconds: the renewal, or the end of the trial. */
  at: number;
  currency: string;
  collection_method: 'charge_automatically' | 'send_invoice';
  lines: { description: string; quantity: number; amount: number }[];
  subtotal: number;
  tax: number;
  total: number;
}

/** A renewal's or a trial's end's reminder, days before (docs/decisions.md §31). */
export function reminderEmail(
  kind: ReminderEmailKind,
  account: { name: string; timeZone: string },
  customer: EmailRecipient,
  details: ReminderDetails,
  color?: string | null,
): EmailContent {
  const date = longDate(details.at, account.timeZone);
  const amount = formatMoney(details.total, details.currency);
  const charged =
    details.collection_method === 'charge_automatically'
      ? `${amount} will be charged to your payment method on file`
      : `an invoice of ${amount} will be sent to you`;
  const opening =
    kind === 'renewal_reminder'
      ? {
          subject: `Your subscription with ${account.name} renews on ${date}`,
          headline: `${amount} on ${date}`,
          lead: `Your subscription with ${account.name} renews on ${date}: ${charged}. Nothing to do if that is what you want; to change or cancel it, reply to this email.`,
        }
      : {
          subject: `Your trial with ${account.name} ends on ${date}`,
          headline: `Your trial ends on ${date}`,
          lead: `Your free trial with ${account.name} ends on ${date}. Your subscription then begins and ${charged}. To cancel before then, reply to this email.`,
        };
  const money = (cents: number) => formatMoney(cents, details.currency);
  return renderEmail({
    ...opening,
    accountName: account.name,
    facts: [{ label: kind === 'renewal_reminder' ? 'Renews on' : 'Trial ends on', value: date }],
    lines: details.lines.map((line) => ({ ...line, amount: money(line.amount) })),
    summary: [
      { label: 'Subtotal', amount: money(details.subtotal) },
      ...(details.tax ? [{ label: 'Tax', amount: money(details.tax) }] : []),
      { label: 'Total', amount: money(details.total), strong: true },
    ],
    ...recipientBlocks(customer),
    color,
  });
}

/** The installment of a payment plan whose automatic charge was declined, and its plan, as the event carries them. */
export interface InstallmentFailure {
  plan: {
    installments_count: number;
    currency: string;
    total_amount: number;
    amount_paid: number;
    amount_overdue: number;
    amount_remaining: number;
  };
  installment: { number: number; amount: number; due_date: number | null; failure_message: string | null };
}

/** A payment plan's installment declined (docs/decisions.md §30): what failed, what is owed now. */
export function installmentFailedEmail(
  account: { name: string; timeZone: string },
  customer: EmailRecipient,
  { plan, installment }: InstallmentFailure,
  color?: string | null,
): EmailContent {
  const money = (cents: number) => formatMoney(cents, plan.currency);
  const which = `installment ${installment.number} of ${plan.installments_count}`;
  return renderEmail({
    subject: `Payment failed for ${which} of your payment plan with ${account.name}`,
    headline: `${money(installment.amount)} could not be charged`,
    lead: `We could not charge your payment method for ${which} of your payment plan with ${account.name}${installment.failure_message ? ` (${installment.failure_message.replace(/\.$/, '')})` : ''}. To keep your plan in good standing, please reply to this email to arrange the payment or another card.`,
    accountName: account.name,
    facts: [
      { label: 'Installment', value: `${installment.number} of ${plan.installments_count}` },
      ...(installment.due_date ? [{ label: 'Due', value: longDate(installment.due_date, account.timeZone) }] : []),
    ],
    lines: [],
    summary: [
      { label: 'Plan total', amount: money(plan.total_amount) },
      { label: 'Amount paid', amount: money(plan.amount_paid) },
      { label: 'Amount overdue', amount: money(plan.amount_overdue), strong: true },
      { label: 'Amount remaining', amount: money(plan.amount_remaining) },
    ],
    ...recipientBlocks(customer),
    color,
  });
}

/** One email's HTML (inline styles and tables, which mail readers keep) and its plain text, saying the same. */
export function renderEmail(body: EmailBody): EmailContent {
  const { subject, accountName, headline, lead, facts, lines, summary, billTo, shipTo, action } = body;
  const from = body.from ?? [];
  // Validated as #rrggbb where it is set (the account's settings); checked again before it goes into a style.
  const color = body.color && /^#[0-9a-fA-F]{6}$/.test(body.color) ? body.color : DEFAULT_BRAND_COLOR;
  const footer = body.footer ?? `Questions? Reply to this email to reach ${accountName}.`;
  const text = [
    accountName,
    '',
    headline,
    lead,
    '',
    ...facts.map((fact) => `${fact.label}: ${fact.value}`),
    ...(lines.length
      ? ['', ...lines.map((line) => `${line.description}  x${line.quantity ?? 1}  ${line.amount}`)]
      : []),
    ...(summary.length ? ['', ...summary.map((row) => `${row.label}: ${row.amount}`)] : []),
    '',
    ...(from.length ? ['From:', ...from.map((line) => `  ${line}`)] : []),
    ...(billTo.length ? ['Bill to:', ...billTo.map((line) => `  ${line}`)] : []),
    ...(shipTo.length ? ['Ship to:', ...shipTo.map((line) => `  ${line}`)] : []),
    ...(action ? ['', `${action.label}: ${action.url}`] : []),
    '',
    footer,
  ].join('\n');

  const cell = 'padding:6px 0;border-bottom:1px solid #e4e7eb;';
  const lineRows = lines
    .map(
      (line) =>
        `<tr><td style="${cell}">${escapeHtml(line.description)}<br><span style="color:#616e7c;font-size:12px">Qty ${line.quantity ?? 1}</span></td>` +
        `<td style="${cell}text-align:right;white-space:nowrap">${escapeHtml(line.amount)}</td></tr>`,
    )
    .join('');
  const summaryHtml = summary
    .map(
      (row) =>
        `<tr><td style="padding:4px 0;${row.strong ? 'font-weight:bold;' : 'color:#52606d;'}">${escapeHtml(row.label)}</td>` +
        `<td style="padding:4px 0;text-align:right;${row.strong ? 'font-weight:bold;' : ''}">${escapeHtml(row.amount)}</td></tr>`,
    )
    .join('');
  const factsHtml = facts
    .map((fact) => `${escapeHtml(fact.label)} <strong style="color:#1f2933">${escapeHtml(fact.value)}</strong>`)
    .join(' &middot; ');
  const block = (title: string, blockLines: string[]) =>
    blockLines.length
      ? `<td style="vertical-align:top;padding:0 16px 0 0;width:50%"><div style="color:#616e7c;font-size:12px;text-transform:uppercase;letter-spacing:.04em">${title}</div>` +
        `<div style="line-height:1.5">${blockLines.map(escapeHtml).join('<br>')}</div></td>`
      : '';
  const button = action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="background:${color};color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:bold;display:inline-block">${escapeHtml(action.label)}</a></p>`
    : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f5f7fa;font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2933">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f5f7fa"><tr><td align="center" style="padding:32px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:8px;border:1px solid #e4e7eb;border-top:4px solid ${color}">
<tr><td style="padding:28px 32px 8px">
<div style="font-size:18px;font-weight:bold;color:${color}">${escapeHtml(accountName)}</div>
<h1 style="font-size:26px;margin:20px 0 8px">${escapeHtml(headline)}</h1>
<p style="margin:0 0 4px;line-height:1.5">${escapeHtml(lead)}</p>
${factsHtml ? `<p style="margin:12px 0 0;color:#52606d">${factsHtml}</p>` : ''}
${button}
</td></tr>
${lineRows ? `<tr><td style="padding:8px 32px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="font-size:14px">${lineRows}</table></td></tr>` : ''}
${summaryHtml ? `<tr><td style="padding:8px 32px 16px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="font-size:14px">${summaryHtml}</table></td></tr>` : ''}
${from.length || billTo.length || shipTo.length ? `<tr><td style="padding:8px 32px 24px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="font-size:14px"><tr>${block('From', from)}${block('Bill to', billTo)}${block('Ship to', shipTo)}</tr></table></td></tr>` : ''}
<tr><td style="padding:16px 32px;border-top:1px solid #e4e7eb;color:#616e7c;font-size:12px">${escapeHtml(footer)}</td></tr>
</table></td></tr></table>
</body></html>`;
  return { subject, html, text };
}
