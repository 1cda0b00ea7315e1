import { ActivityFailure, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { EmailActivities } from '../activities/emails';
import { HEARTBEAT_TIMEOUT } from './activity-options';

/**
 * Every change of the email workflow's behaviour that emails already under way must not see (docs/decisions.md
 * §1): asked with `patched(id)` where the old and the new code part (the recorded email-*.json histories replay).
 */
export const EMAIL_PATCHES = {
  /**
   * The email written queued by a local activity in the first workflow task: an email that goes at once costs
   * two workflow tasks and one activity task (the send) instead of three and two (docs/decisions.md §30).
   */
  localPrepare: 'email-local-prepare',
} as const;

/** Reading the event and the invoice: database errors only, retried until they pass. */
const retryReads = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' } as const;
const steps = proxyActivities<EmailActivities>({
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: retryReads,
});
const localSteps = proxyLocalActivities<EmailActivities>({ startToCloseTimeout: '30 seconds', retry: retryReads });

/**
 * The SMTP attempt: 10 s, then doubling up to 30 min, 12 attempts (about 3.5 hours) before the email
 * is failed (docs/decisions.md §30). An SMTP server that refuses for good (5xx) is an answer, not a retry.
 */
const smtp = proxyActivities<EmailActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '30 minutes', maximumAttempts: 12 },
});

/**
 * The event that calls for an email (the relay starts these), or an email queued already: a subscription's
 * reminder (docs/decisions.md §31), or an invoice a merchant asked to send (`kind` names it in the step's summary).
 */
export type SendEmailInput = { eventId: string } | { emailId: string; kind?: string };

export interface SendEmailResult {
  emailId: string | null;
  status: 'none' | 'sent' | 'already_sent' | 'rejected' | 'failed' | 'missing';
}

/**
 * `email:<event id>`: the email an outbox event calls for (started by the relay, src/emails/email-trigger.ts),
 * written queued, then sent once with retries. `email:<eml id>`: an email queued already (a
 * subscription's reminder, started by its workflow; an invoice sent on request, started by the API), sent once
 * with the same retries.
 */
export async function sendEmail(input: SendEmailInput): Promise<SendEmailResult> {
  const prepared =
    'emailId' in input
      ? { emailId: input.emailId, kind: input.kind ?? 'reminder' }
      : await (patched(EMAIL_PATCHES.localPrepare) ? localSteps : steps).prepareEmail.executeWithOptions(
          { summary: 'prepare the email' },
          [{ eventId: input.eventId }],
        );
  if (!prepared) return { emailId: null, status: 'none' };
  const { emailId } = prepared;
  try {
    const status = await smtp.deliverEmail.executeWithOptions({ summary: `send ${prepared.kind} email` }, [
      { emailId },
    ]);
    return { emailId, status };
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const reason = error.cause?.message ?? error.message;
    await steps.giveUpEmail.executeWithOptions({ summary: 'retries ran out: email failed' }, [{ emailId, reason }]);
    return { emailId, status: 'failed' };
  }
}
