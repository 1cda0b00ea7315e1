import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { ADMIN_ROLES } from '../http/auth';
import { pageSchema } from '../http/pagination';
import { auditEntrySchema, auditLogQuery } from './audit.schemas';
import { listAuditLog } from './audit.service';

export function registerAuditRoutes(api: Api, { prisma }: AppDeps): void {
  api.route({
    method: 'get',
    path: '/audit-log',
    tag: 'Audit log',
    roles: ADMIN_ROLES,
    summary: 'Every write made through the API, newest first: who (API key or dashboard user), what, on which object',
    query: auditLogQuery,
    response: pageSchema(auditEntrySchema),
    handler: ({ principal, query }) => listAuditLog(prisma, principal.accountId, query),
  });
}
