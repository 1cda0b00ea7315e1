import type { Db } from '../db/prisma';
import type { CompletedWrite } from '../http/api';
import { logger } from '../http/logger';
import { pageEnvelope, pageWindow, type Page, type PageParams } from '../http/pagination';
import { toUnixSeconds } from '../lib/time';
import { insertAuditEntry, listAuditEntries, type AuditRow } from './audit.records';
import type { AuditEntryObject } from './audit.schemas';

/** The object a write changed: the answer's own id, else the first id in its path. */
function objectIdOf(write: CompletedWrite): string | null {
  const body = write.body as { id?: unknown } | null | undefined;
  if (body && typeof body === 'object' && typeof body.id === 'string') return body.id;
  const first = Object.values(write.params).find((value) => typeof value === 'string');
  return typeof first === 'string' ? first : null;
}

/**
 * Records each write the API answered with success, once the answer is sent (so it adds nothing to
 * the write's own time): who (the key or the user), the operation, the object and the request id. A
 * replay of an Idempotency-Key answers what was recorded already and is not a new write. If the
 * process dies between the write's commit and this insert, that one entry is lost (docs/api.md
 * "Audit log"); a failed insert is logged with the request id.
 */
export function auditRecorder(prisma: Db): (write: CompletedWrite) => void {
  return (write) => {
    const { principal } = write;
    const actor = principal.keyId
      ? { actorType: 'api_key', actorId: principal.keyId }
      : { actorType: 'user', actorId: principal.userId ?? 'unknown' };
    insertAuditEntry(prisma, {
      accountId: principal.accountId,
      ...actor,
      method: write.method.toUpperCase(),
      route: write.route,
      path: write.path,
      status: write.status,
      objectId: objectIdOf(write),
      requestId: write.requestId,
    }).catch((error: unknown) => logger.error({ err: error, requestId: write.requestId }, 'audit entry not recorded'));
  };
}

function toAuditEntryObject(row: AuditRow): AuditEntryObject {
  const actorName =
    row.actorType === 'user' ? (row.user_name ?? row.user_email) : row.key_prefix ? `API key ${row.key_prefix}…` : null;
  return {
    id: `aud_${row.id}`,
    object: 'audit_entry',
    created: toUnixSeconds(new Date(row.at)),
    actor: {
      type: row.actorType as 'api_key' | 'user',
      id: row.actorId,
      name: actorName,
      email: row.actorType === 'user' ? row.user_email : null,
    },
    method: row.method,
    route: row.route,
    path: row.path,
    status: row.status,
    object_id: row.objectId,
    request_id: row.requestId,
  };
}

export async function listAuditLog(
  prisma: Db,
  accountId: string,
  query: PageParams & { object?: string },
): Promise<Page<AuditEntryObject>> {
  const { skip, take } = pageWindow(query);
  const { rows, total } = await listAuditEntries(prisma, accountId, { objectId: query.object ?? null, skip, take });
  return pageEnvelope(rows.map(toAuditEntryObject), total, query);
}
