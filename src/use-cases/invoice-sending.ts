import { config } from '../config';
import { runTransaction } from '../db/sql-transaction';
import { toEmailObject } from '../emails';
import type { EmailObject } from '../emails';
import { queueRequestedInvoiceEmail, requestedInvoiceEmailId } from '../emails';
import type { AppDeps } from '../http/app-deps';
import { conflict } from '../http/errors';
import { getInvoice } from '../invoices';
import { BILLING_ACCOUNT_ID } from '../temporal';
import { recordWorkflowStart, startRecordedWorkflow, type WorkflowStart } from '../temporal';
import type { SendEmailInput } from '../../workflows/email';

/**
 * POST /invoices/{id}/send (docs/api.md, "Emails"): the invoice emailed to its customer now, with its PDF, as
 * the email of a `send_invoice` invoice's finalization is. The email row and its workflow's start
 * (`email:<eml id>`, workflows/email.ts) are written in one transaction (the start outbox, docs/decisions.md
 * §14), so a crash after the commit leaves the start to the worker's sweep; the workflow sends it once per
 * Message-ID, and its `invoice.sent` follows once the SMTP server took it. Keyed by the request's
 * Idempotency-Key (a double click, a retry after a lost answer: one email); answered queued, to be read
 * again with GET /emails/{id}.
 */
export async function sendInvoiceEmail(
  deps: AppDeps,
  accountId: string,
  invoiceId: string,
  idempotencyKey: string | undefined,
): Promise<EmailObject> {
  const { email, start } = await runTransaction(deps.prisma, async (tx) => {
    const invoice = await getInvoice(tx, accountId, invoiceId);
    if (invoice.status === 'void')
      throw conflict(`Invoice ${invoice.number ?? invoiceId} is void: nothing is owed on it to send.`, 'invoice_void');
    const id = requestedInvoiceEmailId(invoiceId, idempotencyKey);
    const { email: queued, created } = await queueRequestedInvoiceEmail(tx, accountId, invoice, id);
    const input: SendEmailInput = { emailId: queued.id, kind: 'invoice' };
    const recorded: WorkflowStart = {
      workflowId: `email:${queued.id}`,
      accountId,
      workflowType: 'sendEmail',
      taskQueue: deps.taskQueue ?? config.taskQueue,
      args: [input],
      searchAttributes: [{ key: BILLING_ACCOUNT_ID, value: accountId }],
      staticSummary: `invoice email for ${invoice.number}, sent on request`,
    };
    // A repeat of the request finds its email written already, and its start recorded with it.
    if (created) await recordWorkflowStart(tx, recorded);
    return { email: queued, start: recorded };
  });
  await startRecordedWorkflow(deps, start);
  return toEmailObject(email);
}
