import type { CaughtEmail, Email, Prisma } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import {} from '../db/sql';
import { newestFirstList } from '../db/newest-first-list';

/** The email module's data access (docs/architecture.md, "Data access"): emails and caught_emails. */

/** The event an email is about, as the outbox holds it. */
export async function readEventForEmail(
  db: Db,
  eventId: string,
): Promise<{ id: string; accountId: string; type: string; data: unknown } | null> {
  return db.event.findUnique({ where: { id: eventId }, select: { id: true, accountId: true, type: true, data: true } });
}

export type NewEmail = Pick<Email, 'id' | 'accountId' | 'kind' | 'toAddress' | 'subject' | 'customerId' | 'messageId'> &
  Partial<Pick<Email, 'eventId' | 'invoiceId' | 'subscriptionId' | 'paymentPlanId'>> & {
    details?: Prisma.InputJsonValue;
  };

/**
 * Writes the email queued, once: its id derives from what called for it (the event and the kind, or a
 * reminder's subscription, kind and moment), so a second call answers the row already there.
 */
export async function insertEmailOnce(db: Db | Tx, email: NewEmail): Promise<Email> {
  await db.email.createMany({ data: [email], skipDuplicates: true });
  return db.email.findUniqueOrThrow({ where: { id: email.id } });
}

export async function readEmail(db: Db | Tx, id: string): Promise<Email | null> {
  return db.email.findUnique({ where: { id } });
}

/**
 * An attempt begins: counted and stamped before anything is sent (docs/decisions.md §30). An email's times
 * are the SMTP exchange's, in the real world: the wall clock, whatever clock its customer bills on.
 */
export async function beginAttempt(db: Db, id: string): Promise<void> {
  await db.email.updateMany({
    where: { id, status: 'queued' },
    data: { attempts: { increment: 1 }, attemptedAt: new Date(), lastResponse: null },
  });
}

/** The attempt's failure, as the SMTP client told it: the next attempt knows nothing reached the server. */
export async function recordAttemptFailure(db: Db, id: string, reason: string): Promise<void> {
  await db.email.updateMany({ where: { id, status: 'queued' }, data: { lastResponse: reason.slice(0, 1000) } });
}

/** queued -> sent; false when it was sent already (the caller then records nothing more). */
export async function markEmailSent(tx: Tx, id: string, response: string): Promise<boolean> {
  const { count } = await tx.email.updateMany({
    where: { id, status: { not: 'sent' } },
    data: { status: 'sent', sentAt: new Date(), lastResponse: response.slice(0, 1000) },
  });
  return count === 1;
}

export async function markEmailFailed(db: Db, id: string, reason: string): Promise<void> {
  await db.email.updateMany({
    where: { id, status: 'queued' },
    data: { status: 'failed', failedAt: new Date(), lastResponse: reason.slice(0, 1000) },
  });
}

export interface EmailFilter {
  invoiceId?: string;
  customerId?: string;
  subscriptionId?: string;
}

/** The account's emails (about an invoice, to a customer, of a subscription), newest first (GET /emails). */
export const emailList = newestFirstList<Email, EmailFilter>({
  table: 'emails',
  columns: { invoiceId: 'invoice_id', customerId: 'customer_id', subscriptionId: 'subscription_id' },
  findMany: (db, read) => db.email.findMany(read),
  count: (db, where) => db.email.count({ where }),
});

/** The statement of the ids of `take` of the account's emails after (`forward`) or before `at`. */
export const emailCursorStatement = emailList.cursorStatement;

export async function findEmail(db: Db, accountId: string, id: string): Promise<Email | null> {
  return db.email.findFirst({ where: { id, accountId } });
}

export type NewCaughtEmail = Omit<CaughtEmail, 'id' | 'receivedAt' | 'attachments'> & {
  attachments: { filename: string; content_type: string; size: number; content: string }[];
};

export async function insertCaughtEmail(db: Db, email: NewCaughtEmail): Promise<void> {
  await db.caughtEmail.create({ data: email });
}

/** The Message-IDs of the account's emails (to `to` when given), and each one's email. */
async function accountMessageIds(db: Db, accountId: string, to: string | undefined) {
  const sent = await db.email.findMany({
    where: { accountId, ...(to ? { toAddress: { equals: to, mode: 'insensitive' } } : {}) },
    select: { id: true, kind: true, messageId: true },
  });
  return new Map(sent.map((email) => [email.messageId, email]));
}

export type CaughtEmailRow = CaughtEmail & { emailId: string; kind: string };

/**
 * A page of the messages the catcher received that the account's emails sent (joined on the
 * Message-ID: another account's are never listed), to `to` when given, newest first; and their count.
 */
export async function listCaughtEmails(
  db: Db,
  accountId: string,
  filter: { to?: string },
  window: { skip: number; take: number },
): Promise<{ rows: CaughtEmailRow[]; total: number }> {
  const byMessageId = await accountMessageIds(db, accountId, filter.to);
  if (byMessageId.size === 0) return { rows: [], total: 0 };
  const where = {
    messageId: { in: [...byMessageId.keys()] },
    ...(filter.to ? { toAddresses: { has: filter.to.toLowerCase() } } : {}),
  };
  const [caught, total] = await Promise.all([
    db.caughtEmail.findMany({ where, orderBy: { id: 'desc' }, ...window }),
    db.caughtEmail.count({ where }),
  ]);
  return {
    rows: caught.map((message) => {
      const email = byMessageId.get(message.messageId!)!;
      return { ...message, emailId: email.id, kind: email.kind };
    }),
    total,
  };
}

/** One received message of the account's emails, or null (unknown, or another account's). */
export async function readCaughtEmail(db: Db, accountId: string, id: bigint): Promise<CaughtEmail | null> {
  const message = await db.caughtEmail.findUnique({ where: { id } });
  if (!message?.messageId) return null;
  const email = await db.email.findFirst({ where: { accountId, messageId: message.messageId }, select: { id: true } });
  return email ? message : null;
}
