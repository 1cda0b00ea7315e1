import type { Db } from '../db/prisma';
import { notFound } from '../http/errors';
import { pageEnvelope, pageWindow, type Page } from '../http/pagination';
import { FileAnswer } from '../http/api';
import type { EmailKind } from './email.schemas';
import { listCaughtEmails, readCaughtEmail, type CaughtEmailRow } from './email.records';
import type { CaughtEmailObject, ListCaughtEmailsQuery } from './caught-email.schemas';

type StoredAttachment = { filename: string; content_type: string; size: number; content: string };

const MESSAGE_PREFIX = 'msg_';

function toCaughtEmailObject(row: CaughtEmailRow): CaughtEmailObject {
  const attachments = row.attachments as StoredAttachment[];
  return {
    id: `${MESSAGE_PREFIX}${row.id}`,
    object: 'test_email',
    email: row.emailId,
    kind: row.kind as EmailKind,
    message_id: row.messageId,
    from: row.fromAddress,
    to: row.toAddresses,
    subject: row.subject,
    html: row.html,
    text: row.text,
    attachments: attachments.map(({ filename, content_type, size }) => ({ filename, content_type, size })),
    received: Math.floor(row.receivedAt.getTime() / 1000),
  };
}

/** GET /test-helpers/emails: what the local SMTP catcher received of the account's emails, newest first. */
export async function listTestEmails(
  prisma: Db,
  accountId: string,
  query: ListCaughtEmailsQuery,
): Promise<Page<CaughtEmailObject>> {
  const { rows, total } = await listCaughtEmails(prisma, accountId, { to: query.to }, pageWindow(query));
  return pageEnvelope(rows.map(toCaughtEmailObject), total, query);
}

/** GET /test-helpers/emails/{id}/attachments/{index}: the attachment's bytes. */
export async function testEmailAttachment(
  prisma: Db,
  accountId: string,
  id: string,
  index: number,
): Promise<FileAnswer> {
  const digits = id.startsWith(MESSAGE_PREFIX) ? id.slice(MESSAGE_PREFIX.length) : '';
  const message = /^[0-9]{1,18}$/.test(digits) ? await readCaughtEmail(prisma, accountId, BigInt(digits)) : null;
  if (!message) throw notFound('test email', id);
  const attachment = (message.attachments as StoredAttachment[])[index];
  if (!attachment) throw notFound('attachment', String(index), 'index');
  return new FileAnswer(Buffer.from(attachment.content, 'base64'), attachment.filename, attachment.content_type);
}
