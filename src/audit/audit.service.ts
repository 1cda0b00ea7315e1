import type { Db } from '../db/prisma';
import type { CompletedWrite } from '../http/api';
import { logger } from '../http/logger';
import { pageEnvelope, pageWindow, type Page, type PageParams } from '../http/pagination';
import { toUnixSeconds } from '../lib/time';
import { insertAuditEntries, listAuditEntries, type AuditRow, type AuditWrite } from './audit.records';
import type { AuditEntryObject } from './audit.schemas';

/** The object a write changed: the answer's own id, else the first id in its path. */
function objectIdOf(write: CompletedWrite): string | null {
  const body = write.body as { id?: unknown } | null | undefined;
  if (body && typeof body === 'object' && typeof body.id === 'string') return body.id;
  const first = Object.values(write.params).find((value) => typeof value === 'string');
  return typeof first === 'string' ? first : null;
}

/**
 * How long the entries of answered writes wait to be inserted together (docs/api.md, "Audit log"): one
 * statement and one commit for the writes of this window instead of one each (docs/performance.md,
 * "Twenty-second round"). A batch this large is inserted at once.
 */
export const AUDIT_WINDOW_MS = 100;
const AUDIT_BATCH_MAX = 500;

/** The flush of each recorder holding entries or inserting them, for a graceful stop (flushAuditEntries). */
const recorderFlushes = new Set<() => Promise<void>>();

/**
 * Inserts every entry the recorders still hold and waits for the inserts under way: a graceful stop calls
 * it once the last answers are sent and before the database's pool is closed.
 */
export async function flushAuditEntries(): Promise<void> {
  await Promise.all([...recorderFlushes].map((flush) => flush()));
}

/**
 * Records each write the API answered with success, once the answer is sent (so it adds nothing to
 * the write's own time): who (the key or the user), the operation, the object, the request id and when it
 * was answered. A replay of an Idempotency-Key answers what was recorded already and is not a new write.
 * The entries of a window (AUDIT_WINDOW_MS) are inserted by one statement, in the order answered; if the
 * process dies before that insert, the window's entries are lost (docs/api.md "Audit log"); a failed
 * insert is logged with the request ids.
 */
export function auditRecorder(prisma: Db): (write: CompletedWrite) => void {
  let pending: (AuditWrite & { at: Date })[] = [];
  let window: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();
  const insertPending = (): Promise<void> => {
    clearTimeout(window);
    window = undefined;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return Promise.resolve();
    const insert = insertAuditEntries(prisma, batch)
      .catch((error: unknown) =>
        logger.error({ err: error, requestIds: batch.map((entry) => entry.requestId) }, 'audit entries not recorded'),
      )
      .finally(() => {
        inFlight.delete(insert);
        // Nothing held: the recorder (and its client) is not kept alive by the registry.
        if (pending.length === 0 && inFlight.size === 0) recorderFlushes.delete(flush);
      });
    inFlight.add(insert);
    return insert;
  };
  const flush = async () => {
    await insertPending();
    await Promise.all([...inFlight]);
  };
  return (write) => {
    const { principal } = write;
    const actor = principal.keyId
      ? { actorType: 'api_key', actorId: principal.keyId }
      : { actorType: 'user', actorId: principal.userId ?? 'unknown' };
    pending.push({
      at: new Date(),
      accountId: principal.accountId,
      ...actor,
      method: write.method.toUpperCase(),
      route: write.route,
      path: write.path,
      status: write.status,
      objectId: objectIdOf(write),
      requestId: write.requestId,
    });
    recorderFlushes.add(flush);
    if (pending.length >= AUDIT_BATCH_MAX) void insertPending();
    else window ??= setTimeout(() => void insertPending(), AUDIT_WINDOW_MS);
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
