import {
  billToLines,
  documentDate,
  money,
  shipToLines,
  summaryRows,
  type InvoiceDocument,
} from '../documents/invoice-document';

/** The kinds of email the service sends to an account's customers (docs/decisions.md §30). */
export const EMAIL_KINDS = ['invoice', 'receipt', 'payment_failed'] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

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

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** What each kind says above the invoice's details. */
function opening(kind: EmailKind, document: InvoiceDocument): { subject: string; headline: string; lead: string } {
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
  }
}

/**
 * The email of `kind` for the invoice, as HTML (inline styles and tables, which mail readers keep)
 * and as plain text saying the same: the account's name, the amounts, the lines, the customer's
 * address and shipping, and the links given.
 */
export function invoiceEmail(kind: EmailKind, document: InvoiceDocument, links: EmailLinks = {}): EmailContent {
  const { invoice, account } = document;
  const { subject, headline, lead } = opening(kind, document);
  const action =
    kind === 'payment_failed'
      ? links.updatePaymentMethodUrl && { label: 'Update payment method', url: links.updatePaymentMethodUrl }
      : links.hostedInvoiceUrl && {
          label: kind === 'invoice' && invoice.status === 'open' ? 'View and pay invoice' : 'View invoice',
          url: links.hostedInvoiceUrl,
        };
  const summary = summaryRows(document);
  const billTo = billToLines(document);
  const shipTo = shipToLines(document);

  const text = [
    account.name,
    '',
    headline,
    lead,
    '',
    `Invoice number: ${invoice.number ?? ''}`,
    ...(invoice.due_date ? [`Due: ${documentDate(document, invoice.due_date)}`] : []),
    '',
    ...invoice.lines.map((line) => `${line.description ?? ''}  x${line.quantity}  ${money(document, line.amount)}`),
    '',
    ...summary.map((row) => `${row.label}: ${row.amount}`),
    '',
    ...(billTo.length ? ['Bill to:', ...billTo.map((line) => `  ${line}`)] : []),
    ...(shipTo.length ? ['Ship to:', ...shipTo.map((line) => `  ${line}`)] : []),
    ...(action ? ['', `${action.label}: ${action.url}`] : []),
    '',
    `Questions? Reply to this email to reach ${account.name}.`,
  ].join('\n');

  const cell = 'padding:6px 0;border-bottom:1px solid #e4e7eb;';
  const lineRows = invoice.lines
    .map(
      (line) =>
        `<tr><td style="${cell}">${escapeHtml(line.description ?? '')}<br><span style="color:#616e7c;font-size:12px">Qty ${line.quantity}</span></td>` +
        `<td style="${cell}text-align:right;white-space:nowrap">${escapeHtml(money(document, line.amount))}</td></tr>`,
    )
    .join('');
  const summaryHtml = summary
    .map(
      (row) =>
        `<tr><td style="padding:4px 0;${row.strong ? 'font-weight:bold;' : 'color:#52606d;'}">${escapeHtml(row.label)}</td>` +
        `<td style="padding:4px 0;text-align:right;${row.strong ? 'font-weight:bold;' : ''}">${escapeHtml(row.amount)}</td></tr>`,
    )
    .join('');
  const block = (title: string, lines: string[]) =>
    lines.length
      ? `<td style="vertical-align:top;padding:0 16px 0 0;width:50%"><div style="color:#616e7c;font-size:12px;text-transform:uppercase;letter-spacing:.04em">${title}</div>` +
        `<div style="line-height:1.5">${lines.map(escapeHtml).join('<br>')}</div></td>`
      : '';
  const button = action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="background:#1f6feb;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:bold;display:inline-block">${escapeHtml(action.label)}</a></p>`
    : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f5f7fa;font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2933">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f5f7fa"><tr><td align="center" style="padding:32px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:8px;border:1px solid #e4e7eb">
<tr><td style="padding:28px 32px 8px">
<div style="font-size:18px;font-weight:bold">${escapeHtml(account.name)}</div>
<h1 style="font-size:26px;margin:20px 0 8px">${escapeHtml(headline)}</h1>
<p style="margin:0 0 4px;line-height:1.5">${escapeHtml(lead)}</p>
<p style="margin:12px 0 0;color:#52606d">Invoice number <strong style="color:#1f2933">${escapeHtml(invoice.number ?? '')}</strong>${invoice.due_date ? ` &middot; due ${escapeHtml(documentDate(document, invoice.due_date))}` : ''}</p>
${button}
</td></tr>
<tr><td style="padding:8px 32px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="font-size:14px">${lineRows}</table></td></tr>
<tr><td style="padding:8px 32px 16px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="font-size:14px">${summaryHtml}</table></td></tr>
<tr><td style="padding:8px 32px 24px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="font-size:14px"><tr>${block('Bill to', billTo)}${block('Ship to', shipTo)}</tr></table></td></tr>
<tr><td style="padding:16px 32px;border-top:1px solid #e4e7eb;color:#616e7c;font-size:12px">Questions? Reply to this email to reach ${escapeHtml(account.name)}.</td></tr>
</table></td></tr></table>
</body></html>`;
  return { subject, html, text };
}
