import { z } from 'zod';
import { paginationQuery } from '../http/pagination';
import { resourceId } from '../http/validation';
import { EMAIL_KINDS } from './email.schemas';

export const listCaughtEmailsQuery = z.strictObject({
  ...paginationQuery(100),
  to: z.email('must be an email address').max(254).optional().describe('Only messages to this address'),
});

export const caughtAttachmentParams = z.strictObject({
  id: resourceId.describe('A msg_ id of GET /test-helpers/emails'),
  index: z
    .string()
    .regex(/^[0-9]{1,3}$/, 'must be an attachment index (0, 1, ...)')
    .transform(Number)
    .describe("The attachment's position in `attachments`, from 0"),
});

export const caughtEmailSchema = z
  .object({
    id: z.string().describe('msg_<n>: this received message'),
    object: z.literal('test_email'),
    email: z
      .string()
      .describe('The eml_ id of the email the service sent (two messages with one id: it was sent twice)'),
    kind: z.enum(EMAIL_KINDS),
    message_id: z.string().nullable(),
    from: z.string().nullable(),
    to: z.array(z.string()),
    subject: z.string().nullable(),
    html: z.string().nullable(),
    text: z.string().nullable(),
    attachments: z.array(
      z.object({ filename: z.string(), content_type: z.string(), size: z.number().int().describe('Bytes') }),
    ),
    received: z.number().int().describe('Unix seconds'),
  })
  .meta({ id: 'TestEmail' });

export type CaughtEmailObject = z.output<typeof caughtEmailSchema>;
export type ListCaughtEmailsQuery = z.output<typeof listCaughtEmailsQuery>;
