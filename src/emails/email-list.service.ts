import type { Email } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { notFound } from '../http/errors';
import { keysetListPage, type Page } from '../http/pagination';
import { toUnixSeconds } from '../lib/time';
import type { EmailKind } from './email.schemas';
import { emailList, findEmail } from './email.records';
import type { EmailObject, ListEmailsQuery } from './email.schemas';

export function toEmailObject(email: Email): EmailObject {
  return {
    id: email.id,
    object: 'email',
    kind: email.kind as EmailKind,
    to: email.toAddress,
    subject: email.subject,
    status: email.status as EmailObject['status'],
    invoice: email.invoiceId,
    customer: email.customerId,
    subscription: email.subscriptionId,
    payment_plan: email.paymentPlanId,
    event: email.eventId,
    message_id: email.messageId,
    attempts: email.attempts,
    last_response: email.lastResponse,
    created: toUnixSeconds(email.createdAt),
    sent_at: toUnixSeconds(email.sentAt),
    failed_at: toUnixSeconds(email.failedAt),
  };
}

/**
 * GET /emails: the account's emails to its customers, newest first (an invoice's or a customer's timeline), a
 * page at an offset or after/before a cursor (docs/decisions.md §36).
 */
export function listAccountEmails(prisma: Db, accountId: string, query: ListEmailsQuery): Promise<Page<EmailObject>> {
  const filter = { invoiceId: query.invoice, customerId: query.customer, subscriptionId: query.subscription };
  return keysetListPage(query, {
    kind: 'email',
    ...emailList.reads(prisma, accountId, filter),
    objects: (rows) => rows.map(toEmailObject),
  });
}

export async function getEmail(prisma: Db, accountId: string, id: string): Promise<EmailObject> {
  const email = await findEmail(prisma, accountId, id);
  if (!email) throw notFound('email', id);
  return toEmailObject(email);
}
