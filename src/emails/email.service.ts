import type { Email } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { config } from '../config';
import { readAccountProfile, type AccountProfile } from '../accounts/account.records';
import type { InvoiceDocument } from '../documents/invoice-document';
import { loadInvoiceDocument } from '../documents/invoice-document.service';
import { renderInvoicePdf } from '../documents/invoice-pdf';
import { logger as defaultLogger, type Logger } from '../http/logger';
import type { InvoiceObject } from '../invoices/invoice.schemas';
import { getInvoice } from '../invoices/invoice.service';
import { recordEvent } from '../lib/events';
import { idFromSeed } from '../lib/ids';
import { invoiceEmail, type EmailKind, type EmailLinks } from './email-content';
import {
  beginAttempt,
  insertEmailOnce,
  markEmailFailed,
  markEmailSent,
  readEmail,
  readEventForEmail,
  recordAttemptFailure,
} from './email.records';
import type { Mailer } from './mailer';

type SmtpAddress = { name: string; address: string };

/** The events that may call for an email (docs/decisions.md §30). */
export const EMAIL_EVENT_TYPES = ['invoice.finalized', 'invoice.payment_succeeded', 'invoice.payment_failed'] as const;

/**
 * The email an event calls for, from the event alone: a `send_invoice` invoice finalized is sent to
 * the customer; a paid invoice gets a receipt; a subscription's charge that failed (dunning: the
 * customer was not there to see it) gets a failed-payment notice. A charge the merchant made through
 * the API and saw fail is the merchant's to tell.
 */
export function emailKindOf(type: string, data: unknown): EmailKind | null {
  const invoice = data as Partial<InvoiceObject> | null;
  if (!invoice || invoice.object !== 'invoice') return null;
  if (type === 'invoice.finalized') return invoice.collection_method === 'send_invoice' ? 'invoice' : null;
  if (type === 'invoice.payment_succeeded') return 'receipt';
  if (type === 'invoice.payment_failed') return invoice.subscription ? 'payment_failed' : null;
  return null;
}

/** The From of the account's emails: its own when set, else its name with EMAIL_FROM. */
export function fromAddressOf(account: Pick<AccountProfile, 'name' | 'emailFrom'>): SmtpAddress {
  return { name: account.name, address: account.emailFrom ?? config.emailFromDefault };
}

/** `<eml_...@domain>`: the same for every attempt of the message, so a receiver can tell a repeat. */
function messageIdOf(emailId: string, from: SmtpAddress): string {
  return `<${emailId}@${from.address.split('@')[1] ?? 'localhost'}>`;
}

/**
 * The email the event calls for, written queued once (its id derives from the event and the kind:
 * a second call finds the same row). Null when none is sent: no kind for this event, the kind
 * switched off for the account, no customer email on the invoice.
 */
export async function prepareEmail(prisma: Db, eventId: string): Promise<{ emailId: string; kind: EmailKind } | null> {
  const event = await readEventForEmail(prisma, eventId);
  if (!event) return null;
  const kind = emailKindOf(event.type, event.data);
  if (!kind) return null;
  const account = await readAccountProfile(prisma, event.accountId);
  if (!account || account.emailsOff.includes(kind)) return null;
  const invoice = event.data as InvoiceObject;
  if (!invoice.customer_email) return null;
  const document = await loadInvoiceDocument(prisma, event.accountId, invoice.id);
  const id = idFromSeed('email', `${eventId}:${kind}`);
  const email = await insertEmailOnce(prisma, {
    id,
    accountId: event.accountId,
    kind,
    eventId,
    toAddress: invoice.customer_email,
    subject: invoiceEmail(kind, document).subject,
    invoiceId: invoice.id,
    customerId: invoice.customer,
    messageId: messageIdOf(id, fromAddressOf(account)),
  });
  return { emailId: email.id, kind };
}

export interface EmailDeps {
  prisma: Db;
  mailer: Mailer;
  /**
   * The links an email shows; unset, those of hostedPageLinks (the invoice's hosted page for every kind).
   */
  links?: (kind: EmailKind, document: InvoiceDocument) => Promise<EmailLinks> | EmailLinks;
  logger?: Logger;
}

export type DeliveryOutcome = 'sent' | 'already_sent' | 'rejected' | 'failed' | 'missing';

/**
 * Sends a queued email once (docs/decisions.md §30): a row already sent is answered as it is and
 * nothing goes out; otherwise the attempt is stamped, the message built afresh from the invoice and
 * sent under the row's Message-ID, and the row marked sent with `invoice.sent` for an invoice
 * email, in one transaction. The SMTP server's permanent refusal (5xx) fails the email for good;
 * anything else throws, for the activity's retry.
 */
export async function deliverEmail(deps: EmailDeps, emailId: string): Promise<DeliveryOutcome> {
  const { prisma, mailer } = deps;
  const log = deps.logger ?? defaultLogger;
  const email = await readEmail(prisma, emailId);
  if (!email) return 'missing';
  if (email.status === 'sent') return 'already_sent';
  if (email.status === 'failed') return 'failed';
  // The last attempt began and told nothing: its process died during it, perhaps after the server took
  // the message. It goes again under the same Message-ID (the window docs/decisions.md §30 describes).
  if (email.attemptedAt && email.lastResponse === null)
    log.warn(
      { emailId, attempts: email.attempts },
      'email attempt without an outcome: sending again with the same Message-ID',
    );
  const { message, kind } = await buildMessage(deps, email);
  await beginAttempt(prisma, emailId);
  let response: string;
  try {
    response = await mailer.send(message);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await recordAttemptFailure(prisma, emailId, reason);
    const code = (error as { responseCode?: number }).responseCode;
    if (code !== undefined && code >= 500 && code < 600) {
      await markEmailFailed(prisma, emailId, reason);
      return 'rejected';
    }
    throw error;
  }
  await prisma.$transaction(async (tx) => {
    const marked = await markEmailSent(tx, emailId, response);
    if (marked && kind === 'invoice' && email.invoiceId)
      await recordEvent(tx, email.accountId, 'invoice.sent', await getInvoice(tx, email.accountId, email.invoiceId));
  });
  return 'sent';
}

/**
 * An email's links to the invoice's hosted page (docs/decisions.md §29): the invoice to pay, or after a
 * declined renewal the page where the customer pays it with another card, which is saved for them.
 */
export function hostedPageLinks(kind: EmailKind, document: InvoiceDocument): EmailLinks {
  const url = document.invoice.hosted_invoice_url ?? undefined;
  return kind === 'payment_failed' ? { updatePaymentMethodUrl: url } : { hostedInvoiceUrl: url };
}

async function buildMessage(deps: EmailDeps, email: Email) {
  const kind = email.kind as EmailKind;
  const account = await readAccountProfile(deps.prisma, email.accountId);
  const document = await loadInvoiceDocument(deps.prisma, email.accountId, email.invoiceId!);
  const content = invoiceEmail(kind, document, await (deps.links ?? hostedPageLinks)(kind, document));
  const withPdf = kind === 'invoice' || kind === 'receipt';
  return {
    kind,
    message: {
      from: fromAddressOf(account ?? { name: document.account.name, emailFrom: null }),
      to: email.toAddress,
      subject: email.subject,
      html: content.html,
      text: content.text,
      messageId: email.messageId,
      attachments: withPdf
        ? [
            {
              filename: `${document.invoice.number}.pdf`,
              contentType: 'application/pdf',
              content: await renderInvoicePdf(document),
            },
          ]
        : [],
    },
  };
}

/** The workflow gave up on the email (its retries ran out): failed, with the last reason. */
export async function giveUpEmail(prisma: Db, emailId: string, reason: string): Promise<void> {
  await markEmailFailed(prisma, emailId, reason);
}
