import type { AppDeps } from '../http/app-deps';
import { ANY_MEDIA_TYPE, binaryFileSchema, type Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import { testModeEnabled } from '../lib/test-mode';
import { caughtAttachmentParams, caughtEmailSchema, listCaughtEmailsQuery } from './caught-email.schemas';
import { listTestEmails, testEmailAttachment } from './caught-email.service';

/** The local SMTP catcher's messages (test mode only: without it these paths do not exist, 404). */
export function registerCaughtEmailRoutes(api: Api, { prisma }: AppDeps): void {
  if (!testModeEnabled()) return;
  const tag = 'Test helpers';
  api.route({
    method: 'get',
    path: '/test-helpers/emails',
    tag,
    summary: "Test mode: the account's emails the local SMTP catcher received, newest first",
    description:
      'Messages the SMTP server of `SMTP_URL` received when it is the catcher `npm start` runs (or a test runs): HTML, ' +
      "text, attachment names and types. Only messages of this account's emails (matched on their Message-ID).",
    query: listCaughtEmailsQuery,
    response: pageSchema(caughtEmailSchema),
    handler: ({ principal, query }) => listTestEmails(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/test-helpers/emails/{id}/attachments/{index}',
    tag,
    summary: "Test mode: download a caught email's attachment",
    description:
      "Answered with the attachment's own Content-Type, its `content_type` in the message's `attachments` " +
      '(`application/pdf` for the invoice and credit note PDFs the emails attach); `application/octet-stream` ' +
      'when the message gave it none.',
    params: caughtAttachmentParams,
    mediaType: ANY_MEDIA_TYPE,
    response: binaryFileSchema,
    errors: [404],
    handler: ({ principal, params }) => testEmailAttachment(prisma, principal.accountId, params.id, params.index),
  });
}
