import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../src/db/prisma';
import { isRefusal } from '../src/http/errors';
import type { EmailLinks } from '../src/emails';
import type { EmailKind, InvoiceEmailKind, ReminderEmailKind } from '../src/emails';
import { atTime, type ClockTimed } from '../src/lib/clock-time';
import type { SubscriptionState } from '../src/subscriptions';
import { queueSubscriptionReminder, reminderDays } from '../src/use-cases';
import type { InvoiceDocument } from '../src/documents';
import { deliverEmail, giveUpEmail, prepareEmail, type DeliveryOutcome } from '../src/emails';
import type { Mailer } from '../src/emails';

export type { DeliveryOutcome };

export interface EmailActivityDeps {
  prisma: Db;
  mailer: Mailer;
  /** The links the emails show (hosted invoice page, card update), when the service has them. */
  emailLinks?: (kind: InvoiceEmailKind, document: InvoiceDocument) => Promise<EmailLinks> | EmailLinks;
}

/** A refusal of the service (the invoice has no document) is an answer: retrying changes nothing. */
async function refusalsFinal<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isRefusal(error)) throw ApplicationFailure.nonRetryable(error.message, 'EmailRefused');
    throw error;
  }
}

/** The email workflow's steps (workflows/email.ts), each repeatable (docs/decisions.md §30). */
export function createEmailActivities({ prisma, mailer, emailLinks }: EmailActivityDeps) {
  return {
    /** The email the event calls for, written queued once; null when none is sent. */
    async prepareEmail(input: { eventId: string }): Promise<{ emailId: string; kind: EmailKind } | null> {
      return refusalsFinal(() => prepareEmail(prisma, input.eventId));
    },
    /** One attempt to send it; throws (for a retry) when the SMTP server did not take it. */
    async deliverEmail(input: { emailId: string }): Promise<DeliveryOutcome> {
      return refusalsFinal(() => deliverEmail({ prisma, mailer, links: emailLinks }, input.emailId));
    },
    /** The days before a renewal and a trial's end their reminders go, as the account says now (docs/decisions.md §31). */
    async reminderDays(input: { accountId: string }): Promise<Record<ReminderEmailKind, number | null>> {
      // A worker without an SMTP server starts no email (docs/decisions.md §30): no reminder to wait for either.
      if (mailer.configured === false) return { renewal_reminder: null, trial_ending: null };
      return reminderDays(prisma, input.accountId);
    },
    /** A subscription's reminder written queued once (per subscription, kind and moment); null when none is sent. */
    async queueReminder(
      input: { state: SubscriptionState; kind: ReminderEmailKind; dueAt: number } & ClockTimed,
    ): Promise<string | null> {
      // Days the run was started with are timed without asking this worker (docs/decisions.md §31): none without SMTP.
      if (mailer.configured === false) return null;
      return atTime(input.clockTime, () => queueSubscriptionReminder(prisma, input));
    },
    /** Retries ran out: the email is failed for good. */
    async giveUpEmail(input: { emailId: string; reason: string }): Promise<void> {
      await giveUpEmail(prisma, input.emailId, input.reason);
    },
  };
}

export type EmailActivities = ReturnType<typeof createEmailActivities>;
