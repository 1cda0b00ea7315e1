import type { AuditEntry } from '../generated/prisma/client';
import { execute, queryRows, type Queryable, type RowColumns, type Statement } from '../db/sql';

/** A write as the API recorded it (AuditEntry without its id and time). */
export type AuditWrite = Omit<AuditEntry, 'id' | 'at'>;

/** Many entries in one statement, in the order given (their ids follow it), each with the time it was answered. */
const INSERT_ENTRIES: Statement = {
  name: 'audit_insert_many',
  text: `INSERT INTO audit_log (at, account_id, actor_type, actor_id, method, route, path, status, object_id, request_id)
         SELECT at, account_id, actor_type, actor_id, method, route, path, status, object_id, request_id
           FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                       $8::int[], $9::text[], $10::text[])
                WITH ORDINALITY AS e(at, account_id, actor_type, actor_id, method, route, path, status, object_id, request_id, n)
          ORDER BY n`,
};

export async function insertAuditEntries(db: Queryable, writes: (AuditWrite & { at: Date })[]): Promise<void> {
  const column = <K extends keyof AuditWrite | 'at'>(key: K) => writes.map((write) => write[key]);
  await execute(db, INSERT_ENTRIES, [
    column('at'),
    column('accountId'),
    column('actorType'),
    column('actorId'),
    column('method'),
    column('route'),
    column('path'),
    column('status'),
    column('objectId'),
    column('requestId'),
  ]);
}

/** An entry with who the actor is now: the user's name and email, the key's prefix. */
export type AuditRow = RowColumns<AuditEntry> & {
  user_name: string | null;
  user_email: string | null;
  key_prefix: string | null;
};

const LIST_ENTRIES: Statement = {
  name: 'audit_list',
  text: `SELECT a.id, a.at, a.account_id AS "accountId", a.actor_type AS "actorType", a.actor_id AS "actorId",
                a.method, a.route, a.path, a.status, a.object_id AS "objectId", a.request_id AS "requestId",
                u.name AS user_name, u.email AS user_email, k.key_prefix
           FROM audit_log a
           LEFT JOIN users u ON a.actor_type = 'user' AND u.id = a.actor_id
           LEFT JOIN api_keys k ON a.actor_type = 'api_key' AND k.id = a.actor_id AND k.account_id = a.account_id
          WHERE a.account_id = $1 AND ($2::text IS NULL OR a.object_id = $2)
          ORDER BY a.id DESC
          LIMIT $3 OFFSET $4`,
};

const COUNT_ENTRIES: Statement = {
  name: 'audit_count',
  text: `SELECT count(*)::int AS count FROM audit_log WHERE account_id = $1 AND ($2::text IS NULL OR object_id = $2)`,
};

/** The account's entries, newest first; only those of `objectId` when given. */
export async function listAuditEntries(
  db: Queryable,
  accountId: string,
  { objectId, skip, take }: { objectId: string | null; skip: number; take: number },
): Promise<{ rows: AuditRow[]; total: number }> {
  const [rows, [counted]] = await Promise.all([
    queryRows<AuditRow>(db, LIST_ENTRIES, [accountId, objectId, take, skip]),
    queryRows<{ count: number }>(db, COUNT_ENTRIES, [accountId, objectId]),
  ]);
  return { rows, total: counted?.count ?? 0 };
}
