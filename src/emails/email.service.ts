import type { Email, Prisma } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { conflict } from '../http/errors';
import { config } from '../config';
import { readAccountProfile, type AccountProfile } from '../accounts';
import type { InvoiceDocument } from '../documents';
import { loadInvoiceDocument } from '../documents';
import { renderInvoicePdf } from '../documents';
import { logger as defaultLogger, type Logger } from '../http/logger';
import type { InvoiceObject } from '../invoices';
import { getInvoice } from '../invoices';
import { recordEvent } from '../lib/events';
import { idFromSeed, newId } from '../lib/ids';
import { readCustomerEvenDeleted } from '../customers';
import {
  installmentFailedEmail,
  invoiceEmail,
  reminderEmail,
  type EmailContent,
  type EmailLinks,
  type EmailRecipient,
  type InstallmentFailure,
  type ReminderDetails,
} from './email-content';
import type { EmailKind, InvoiceEmailKind, ReminderEmailKind } from './email.schemas';
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
export const EMAIL_EVENT_TYPES = [
  'invoice.finalized',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
  'invoice.payment_action_required',
  'payment_plan.installment_failed',
] as const;

/**
 * The email an event calls for, from the event alone: a `send_invoice` invoice finalized is sent to
 * the customer; a paid invoice gets a receipt; a subscription's charge that failed (dunning: the
 * customer was not there to see it) gets a failed-payment notice. A charge the merchant made through
 * the API and saw fail is the merchant's to tell, and one the customer saw fail on the checkout page
 * (`origin: hosted_checkout`) was told there. A charge waiting for the customer to authenticate it
 * (`invoice.payment_action_required`) asks them to, with the hosted invoice page's link. A payment plan's automatic charge declined
 * (`payment_plan.installment_failed`, only ever an automatic charge) gets its own notice.
 */
export function emailKindOf(type: string, data: unknown): EmailKind | null {
  if (type === 'payment_plan.installment_failed')
    return (data as { object?: string } | null)?.object === 'payment_plan' ? 'installment_failed' : null;
  const invoice = data as Partial<InvoiceObject> | null;
  if (!invoice || invoice.object !== 'invoice') return null;
  if (type === 'invoice.finalized') return invoice.collection_method === 'send_invoice' ? 'invoice' : null;
  if (type === 'invoice.payment_succeeded') return 'receipt';
  // A first charge refused on the checkout page was shown there, and the checkout voids that invoice:
  // no "we will try again" for a subscription that was never the customer's (docs/decisions.md §30).
  if (type === 'invoice.payment_failed')
    return invoice.subscription && originOf(data) !== 'hosted_checkout' ? 'payment_failed' : null;
  // Whoever started the charge, only the customer can authenticate it (3-D Secure): on the invoice's hosted page.
  if (type === 'invoice.payment_action_required') return 'payment_action_required';
  return null;
}

/** The hosted page an event's change was asked on (docs/decisions.md §38), if any. */
function originOf(data: unknown): unknown {
  return (data as { origin?: unknown } | null)?.origin;
}

/** The reminder days an account's settings ask for: null for a kind switched off or unset (docs/decisions.md §31). */
export function wantedReminderDays(
  account: Pick<AccountProfile, 'emailsOff' | 'renewalReminderDays' | 'trialEndReminderDays'> | undefined,
): Record<ReminderEmailKind, number | null> {
  const wanted = (kind: ReminderEmailKind, days: number | null | undefined) =>
    account && !account.emailsOff.includes(kind) ? (days ?? null) : null;
  return {
    renewal_reminder: wanted('renewal_reminder', account?.renewalReminderDays),
    trial_ending: wanted('trial_ending', account?.trialEndReminderDays),
  };
}

/** The From of the account's emails: its own when set, else its name with EMAIL_FROM. */
export function fromAddressOf(account: Pick<AccountProfile, 'name' | 'emailFrom'>): SmtpAddress {
  return { name: account.name, address: account.emailFrom ?? config.emailFromDefault };
}

/** `<eml_...@domain>`: the same for every attempt of the message, so a receiver can tell a repeat. */
function messageIdOf(emailId: string, from: SmtpAddress): string {
  return `<${emailId}@${from.address.split('@')[1] ?? 'localhost'}>`;
}

/** What `payment_plan.installment_failed` carries: the plan after the change, with the installment that failed. */
function installmentFailureOf(data: unknown): InstallmentFailure {
  const plan = data as InstallmentFailure['plan'] & { installment: InstallmentFailure['installment'] };
  return { plan, installment: plan.installment };
}

/** The customer as an email's blocks show them, or null (unknown). */
export async function emailRecipient(db: Db, accountId: string, customerId: string): Promise<EmailRecipient | null> {
  const customer = await readCustomerEvenDeleted(db, accountId, customerId);
  if (!customer) return null;
  const addresses = (customer.address as EmailRecipient['address'][] | null) ?? [];
  return {
    name: customer.name,
    email: customer.email,
    phone: customer.phone,
    address: addresses[0] ?? null,
    shipping: (customer.shipping as EmailRecipient['shipping']) ?? null,
  };
}

/**
 * The email the event calls for, written queued once (its id derives from the event and the kind:
 * a second call finds the same row). Null when none is sent: no kind for this event, the kind
 * switched off for the account, no customer email (on the invoice; the customer's for a plan).
 */
export async function prepareEmail(prisma: Db, eventId: string): Promise<{ emailId: string; kind: EmailKind } | null> {
  const event = await readEventForEmail(prisma, eventId);
  if (!event) return null;
  const kind = emailKindOf(event.type, event.data);
  if (!kind) return null;
  const account = await readAccountProfile(prisma, event.accountId);
  if (!account || account.emailsOff.includes(kind)) return null;
  const id = idFromSeed('email', `${eventId}:${kind}`);
  const common = { id, accountId: event.accountId, kind, eventId, messageId: messageIdOf(id, fromAddressOf(account)) };
  if (kind === 'installment_failed') {
    const plan = event.data as InstallmentFailure['plan'] & { id: string; customer: string };
    const customer = await emailRecipient(prisma, event.accountId, plan.customer);
    if (!customer?.email) return null;
    const email = await insertEmailOnce(prisma, {
      ...common,
      toAddress: customer.email,
      subject: installmentFailedEmail(account, customer, installmentFailureOf(event.data)).subject,
      customerId: plan.customer,
      paymentPlanId: plan.id,
    });
    return { emailId: email.id, kind };
  }
  const invoice = event.data as InvoiceObject;
  if (!invoice.customer_email) return null;
  const document = await loadInvoiceDocument(prisma, event.accountId, invoice.id);
  const email = await insertEmailOnce(prisma, {
    ...common,
    toAddress: invoice.customer_email,
    subject: invoiceEmail(kind as InvoiceEmailKind, document).subject,
    invoiceId: invoice.id,
    customerId: invoice.customer,
  });
  return { emailId: email.id, kind };
}

/**
 * The id of an invoice email a merchant asked for (POST /invoices/{id}/send): derived from the request's
 * Idempotency-Key when it has one, so a request taken over after its process died finds the same row; a new
 * one otherwise (each send asked without a key is another email).
 */
export function requestedInvoiceEmailId(invoiceId: string, idempotencyKey: string | undefined): string {
  return idempotencyKey ? idFromSeed('email', `send:${invoiceId}:${idempotencyKey}`) : newId('email');
}

/**
 * An invoice email a merchant asked for, written queued in the caller's transaction under `id` (the row
 * already there is answered as it is, `created` false), to the invoice's `customer_email` or else the customer's email now:
 * 409 `customer_email_missing` without either. A draft, or a void invoice never finalized, has no document
 * to send: 409 `invoice_not_finalized`. The account's switch of the automatic invoice emails does not apply:
 * someone asked for this one.
 */
export async function queueRequestedInvoiceEmail(
  tx: Tx,
  accountId: string,
  invoice: InvoiceObject,
  id: string,
): Promise<{ email: Email; created: boolean }> {
  const existing = await readEmail(tx, id);
  if (existing) return { email: existing, created: false };
  const document = await loadInvoiceDocument(tx, accountId, invoice.id);
  const to = invoice.customer_email ?? (await readCustomerEvenDeleted(tx, accountId, invoice.customer))?.email;
  if (!to)
    throw conflict(
      `Neither invoice ${invoice.number} nor its customer ${invoice.customer} has an email address: add one to the customer first.`,
      'customer_email_missing',
    );
  const account = await readAccountProfile(tx, accountId);
  if (!account) throw new Error(`account ${accountId} is gone`);
  const email = await insertEmailOnce(tx, {
    id,
    accountId,
    kind: 'invoice',
    toAddress: to,
    subject: invoiceEmail('invoice', document).subject,
    invoiceId: invoice.id,
    customerId: invoice.customer,
    messageId: messageIdOf(id, fromAddressOf(account)),
  });
  return { email, created: true };
}

/** A reminder to queue (docs/decisions.md §31): the subscription's, of `kind`, for the moment `details.at`. */
export interface NewReminder {
  accountId: string;
  subscriptionId: string;
  customerId: string;
  kind: ReminderEmailKind;
  /** What it states, computed only when one is sent. */
  details: () => Promise<ReminderDetails>;
}

/** The id of a subscription's reminder for a moment: one per subscription, kind and renewal (or trial end). */
export function reminderEmailId(subscriptionId: string, kind: ReminderEmailKind, atSeconds: number): string {
  return idFromSeed('email', `${subscriptionId}:${kind}:${atSeconds}`);
}

/**
 * The reminder written queued, once per subscription, kind and moment; null when none is sent: the
 * kind switched off or its days unset by now, the customer without an email.
 */
export async function queueReminderEmail(prisma: Db, reminder: NewReminder): Promise<string | null> {
  const { accountId, kind } = reminder;
  const account = await readAccountProfile(prisma, accountId);
  if (!account || account.emailsOff.includes(kind)) return null;
  const days = kind === 'renewal_reminder' ? account.renewalReminderDays : account.trialEndReminderDays;
  if (days === null) return null;
  const customer = await emailRecipient(prisma, accountId, reminder.customerId);
  if (!customer?.email) return null;
  const details = await reminder.details();
  const id = reminderEmailId(reminder.subscriptionId, kind, details.at);
  const email = await insertEmailOnce(prisma, {
    id,
    accountId,
    kind,
    toAddress: customer.email,
    subject: reminderEmail(kind, account, customer, details).subject,
    customerId: reminder.customerId,
    subscriptionId: reminder.subscriptionId,
    messageId: messageIdOf(id, fromAddressOf(account)),
    details: details as unknown as Prisma.InputJsonValue,
  });
  return email.id;
}

export interface EmailDeps {
  prisma: Db;
  mailer: Mailer;
  /**
   * The links an email shows; unset, those of hostedPageLinks (the invoice's hosted page for every kind).
   */
  links?: (kind: InvoiceEmailKind, document: InvoiceDocument) => Promise<EmailLinks> | EmailLinks;
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
export function hostedPageLinks(kind: InvoiceEmailKind, document: InvoiceDocument): EmailLinks {
  const url = document.invoice.hosted_invoice_url ?? undefined;
  return kind === 'payment_failed' ? { updatePaymentMethodUrl: url } : { hostedInvoiceUrl: url };
}

/** The message of a queued email, built afresh: from the invoice, the plan's event, or the reminder's details. */
async function buildMessage(deps: EmailDeps, email: Email) {
  const kind = email.kind as EmailKind;
  const account = await readAccountProfile(deps.prisma, email.accountId);
  const from = (name: string) => fromAddressOf(account ?? { name, emailFrom: null });
  const message = (content: EmailContent, sender: SmtpAddress) => ({
    from: sender,
    to: email.toAddress,
    subject: email.subject,
    html: content.html,
    text: content.text,
    messageId: email.messageId,
  });
  if (kind === 'installment_failed' || kind === 'renewal_reminder' || kind === 'trial_ending') {
    if (!account) throw new Error(`account ${email.accountId} is gone`);
    const customer = (await emailRecipient(deps.prisma, email.accountId, email.customerId!)) ?? {
      name: null,
      email: email.toAddress,
      phone: null,
      address: null,
      shipping: null,
    };
    const content =
      kind === 'installment_failed'
        ? installmentFailedEmail(
            account,
            customer,
            installmentFailureOf((await readEventForEmail(deps.prisma, email.eventId!))!.data),
            account.brandColor,
          )
        : reminderEmail(kind, account, customer, email.details as unknown as ReminderDetails, account.brandColor);
    return { kind, message: { ...message(content, from(account.name)), attachments: [] } };
  }
  const document = await loadInvoiceDocument(deps.prisma, email.accountId, email.invoiceId!);
  const content = invoiceEmail(
    kind,
    document,
    await (deps.links ?? hostedPageLinks)(kind, document),
    account?.brandColor,
  );
  const withPdf = kind === 'invoice' || kind === 'receipt';
  return {
    kind,
    message: {
      ...message(content, from(document.account.name)),
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
