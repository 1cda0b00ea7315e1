import { z } from 'zod';
import { cursorQuery, paginationQuery } from '../http/pagination';
import { resourceId, unixTime } from '../http/validation';
import { invoiceId } from '../invoices/invoice.schemas';

/** The kinds of email about an invoice (docs/decisions.md §30): rendered from the invoice's document. */
export const INVOICE_EMAIL_KINDS = ['invoice', 'receipt', 'payment_failed', 'payment_action_required'] as const;
export type InvoiceEmailKind = (typeof INVOICE_EMAIL_KINDS)[number];
/** The reminders a subscription's workflow calls for, days before (docs/decisions.md §31). */
export const REMINDER_EMAIL_KINDS = ['renewal_reminder', 'trial_ending'] as const;
export type ReminderEmailKind = (typeof REMINDER_EMAIL_KINDS)[number];
/** Every kind of email the service sends to an account's customers; each can be switched off (`emails_off`). */
export const EMAIL_KINDS = [...INVOICE_EMAIL_KINDS, 'installment_failed', ...REMINDER_EMAIL_KINDS] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

export const EMAIL_STATUSES = ['queued', 'sent', 'failed'] as const;

export const listEmailsQuery = z.strictObject({
  ...paginationQuery(100),
  ...cursorQuery(),
  invoice: invoiceId.optional().describe("Only the emails about this invoice (the invoice's timeline)"),
  customer: resourceId.optional().describe("Only the emails to this customer (the customer's timeline)"),
  subscription: resourceId.optional().describe('Only the emails about this subscription (its reminders)'),
});

export const emailIdParams = z.strictObject({ id: resourceId });

export const emailSchema = z
  .object({
    id: z.string().describe('eml_...'),
    object: z.literal('email'),
    kind: z.enum(EMAIL_KINDS),
    to: z.string(),
    subject: z.string(),
    status: z.enum(EMAIL_STATUSES).describe('queued (not accepted by the SMTP server yet), sent, failed'),
    invoice: z.string().nullable(),
    customer: z.string().nullable(),
    subscription: z.string().nullable().describe('The subscription a reminder is about'),
    payment_plan: z.string().nullable().describe('The payment plan an installment_failed email is about'),
    event: z
      .string()
      .nullable()
      .describe("The event that called for it; null for a reminder, which the subscription's workflow calls for"),
    message_id: z.string().describe('The SMTP Message-ID, the same on every attempt'),
    attempts: z.number().int(),
    last_response: z.string().nullable().describe("The SMTP server's last answer, or why the last attempt failed"),
    created: unixTime,
    sent_at: z.number().int().nullable(),
    failed_at: z.number().int().nullable(),
  })
  .meta({ id: 'Email' });

export type EmailObject = z.output<typeof emailSchema>;
export type ListEmailsQuery = z.output<typeof listEmailsQuery>;
