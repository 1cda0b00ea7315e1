import { z } from 'zod';
import { paginationQuery } from '../http/pagination';
import { unixTime } from '../http/validation';

export const auditLogQuery = z.strictObject({
  ...paginationQuery(100),
  object: z.string().min(1).max(100).optional().describe('Only the writes of this object (its id)'),
});

export const auditEntrySchema = z
  .object({
    id: z.string(),
    object: z.literal('audit_entry'),
    created: unixTime,
    actor: z.object({
      type: z.enum(['api_key', 'user']),
      id: z.string().describe('key_... or usr_...'),
      name: z.string().nullable().describe("The user's name, or the key's first characters"),
      email: z.string().nullable(),
    }),
    method: z.string(),
    route: z.string().describe('The operation, as its path template'),
    path: z.string(),
    status: z.number().int(),
    object_id: z.string().nullable().describe('The object written'),
    request_id: z.string().describe('x-request-id of the write, as in the logs'),
  })
  .meta({ id: 'AuditEntry' });

export type AuditEntryObject = z.output<typeof auditEntrySchema>;
