import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { EventConsumer, OutboxEvent } from '../lib/events';
import { forEachLimited } from '../lib/concurrency';
import { emailDisplay } from '../temporal';
import { BILLING_ACCOUNT_ID } from '../temporal';
import type { sendEmail } from '../../workflows/email';
import { EMAIL_EVENT_TYPES, emailKindOf } from './email.service';

/** The workflow id of the email an event calls for: one per event, whatever relay starts it how often. */
export function emailWorkflowId(eventId: string): string {
  return `email:${eventId}`;
}

/**
 * The relay's consumer that starts the `sendEmail` workflow of each event that calls for an email
 * (docs/decisions.md §30). Started before the relay marks the events dispatched, so an email is never
 * lost to a crash; the workflow id makes a second start of the same event a no-op.
 */
export function emailConsumer(temporal: Client, taskQueue: string): EventConsumer {
  return {
    types: EMAIL_EVENT_TYPES,
    async consume(events: OutboxEvent[]) {
      const wanted = events.filter((event) => emailKindOf(event.type, event.data) !== null);
      await forEachLimited(wanted, 16, async (event) => {
        try {
          await temporal.workflow.start<typeof sendEmail>('sendEmail', {
            workflowId: emailWorkflowId(event.id),
            taskQueue,
            args: [{ eventId: event.id }],
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            workflowIdConflictPolicy: 'FAIL',
            typedSearchAttributes: [{ key: BILLING_ACCOUNT_ID, value: event.accountId }],
            ...emailDisplay({ accountId: event.accountId, about: event.type, eventId: event.id }),
          });
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        }
      });
    },
  };
}
