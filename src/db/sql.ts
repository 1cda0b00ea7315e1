import { createHash } from 'node:crypto';
import type { Db, Tx } from './prisma';
import { poolOf } from './prisma';
import { SqlConnection, type SqlTx } from './sql-transaction';

/** A fixed SQL text with a name: prepared once per connection, then only executed. */
export interface Statement {
  name: string;
  text: string;
}

const statements = new Map<string, Statement>();

/**
 * A statement whose text a data-access function builds from its arguments (the columns an UPDATE
 * sets): named after its text, so each text is prepared once per connection under a name of its own.
 */
export function statementOf(prefix: string, text: string): Statement {
  let statement = statements.get(text);
  if (!statement) {
    statement = { name: `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text };
    statements.set(text, statement);
  }
  return statement;
}

/** A timestamp read by pg (a Date) or inside JSON a statement built (an ISO string), as a Date. */
export function dateOf(value: Date | string): Date {
  return new Date(value);
}

export function dateOrNull(value: Date | string | null): Date | null {
  return value === null ? null : new Date(value);
}

/**
 * A row as a statement answers it, by pg or inside JSON (json_agg, json_build_object), before the
 * caller's ...OfRow function gives it Prisma's shape: timestamps may be ISO strings, bigints strings or numbers.
 */
export type RowColumns<T> = {
  [K in keyof T]: T[K] extends Date
    ? Date | string
    : T[K] extends Date | null
      ? Date | string | null
      : T[K] extends bigint
        ? string | number
        : T[K];
};

/** What a statement runs on: the client (its pool), Prisma's transaction, sqlTransaction's, or a session's connection. */
export type Queryable = Db | Tx | SqlConnection;

/** A transaction of either kind: what a data-access function that must run inside one takes. */
export type AnyTx = Tx | SqlTx;

/**
 * Runs one statement on the pool under `prisma` without Prisma's query pipeline. Measured on this
 * machine (Performance in the README): a single-row `findFirst` costs about 1.3 ms of CPU in Prisma
 * 6's client engine (its query compiler runs in WebAssembly per call) and `$queryRaw` about 0.4 ms,
 * a prepared statement on the same pg pool about 0.1 ms. In sqlTransaction's SqlTx: prepared on its
 * client, inside it. In Prisma's transaction (or on a client made elsewhere): Prisma's raw path
 * (about 0.4 ms, not prepared), inside that transaction.
 */
export async function queryRows<Row>(db: Queryable, statement: Statement, values: unknown[]): Promise<Row[]> {
  if (db instanceof SqlConnection) return (await db.run(statement, values)).rows as Row[];
  const pool = poolOf(db as Db);
  if (!pool) return db.$queryRawUnsafe<Row[]>(statement.text, ...values);
  const result = await pool.query({ name: statement.name, text: statement.text, values });
  return result.rows as Row[];
}

/**
 * `objects` with `field` beside the id each holds in `key`, set to the `name` that `statement` (parameters: the
 * account and an array of ids; rows `{id, name}`) answers for it, all in one statement; an object without an
 * id, or whose id has no name, is left as it is. The rows of a list name what they refer to this way
 * (`include=names`: docs/api.md, "Names on list rows").
 */
export async function withNamesFrom<
  K extends string,
  F extends string,
  T extends Record<K, string | null> & Partial<Record<F, string>>,
>(db: Queryable, statement: Statement, accountId: string, objects: T[], key: K, field: F): Promise<T[]> {
  const ids = [...new Set(objects.flatMap((object) => (object[key] ? [object[key]] : [])))];
  if (ids.length === 0) return objects;
  const rows = await queryRows<{ id: string; name: string | null }>(db, statement, [accountId, ids]);
  const names = new Map(rows.map((row) => [row.id, row.name]));
  return objects.map((object) => {
    const name = object[key] ? names.get(object[key]) : undefined;
    return name ? ({ ...object, [field]: name } as T) : object;
  });
}

/** A statement with its values: what a list runs, built by its data-access function (test/scale/ explains them). */
export interface BoundStatement {
  statement: Statement;
  values: unknown[];
}

export async function queryBound<Row>(db: Queryable, bound: BoundStatement): Promise<Row[]> {
  return queryRows<Row>(db, bound.statement, bound.values);
}

/** queryRows for a statement that answers no rows: how many rows it wrote. */
export async function execute(db: Queryable, statement: Statement, values: unknown[]): Promise<number> {
  if (db instanceof SqlConnection) return (await db.run(statement, values)).rowCount;
  const pool = poolOf(db as Db);
  if (!pool) return db.$executeRawUnsafe(statement.text, ...values);
  const result = await pool.query({ name: statement.name, text: statement.text, values });
  return result.rowCount ?? 0;
}

/** How a column's value comes back from pg or from JSON a statement built, to reach Prisma's type. */
export type ColumnKind = 'value' | 'bigint' | 'date' | 'date?';

/** Every field of a Prisma model with its kind. */
export type ModelColumns<Model> = Record<keyof Model & string, ColumnKind>;

/**
 * A model's columns: each field of its ScalarFieldEnum (Prisma's list of the model's columns, so none
 * is missed or misspelt) as a plain value, but the bigint and timestamp fields listed by kind.
 */
export function modelColumns<Model>(
  fields: Record<keyof Model & string, string>,
  kinds: Partial<Record<Exclude<ColumnKind, 'value'>, (keyof Model & string)[]>>,
): ModelColumns<Model> {
  const kindOf = new Map<string, ColumnKind>(
    Object.entries(kinds).flatMap(([kind, names]) => names.map((name) => [name, kind as ColumnKind] as const)),
  );
  return Object.fromEntries(
    Object.keys(fields).map((field) => [field, kindOf.get(field) ?? 'value']),
  ) as ModelColumns<Model>;
}

/**
 * `SET (columns) = (...)` of an UPDATE taking the new values from a jsonRecord passed as `$param`:
 * one statement sets any number of columns of `table`, each cast to its column's type by PostgreSQL.
 */
export function setFromRecord(table: string, columns: readonly string[], param = '$1'): string {
  const list = columns.join(', ');
  return `SET (${list}) = (SELECT ${list} FROM jsonb_populate_record(NULL::${table}, ${param}::jsonb))`;
}

/** A field's column: its name in snake case (the schema's @map convention). */
export const columnOfField = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** `alias.column AS "field", ...`: a model's row under Prisma's field names. */
export function selectList<Model>(columns: ModelColumns<Model>, alias: string): string {
  return Object.keys(columns)
    .map((field) => `${alias}.${columnOfField(field)} AS "${field}"`)
    .join(', ');
}

/** `json_build_object('field', alias.column, ...)`: the same row inside JSON (json_agg of child rows). */
export function jsonObjectOf<Model>(columns: ModelColumns<Model>, alias: string): string {
  return `json_build_object(${Object.keys(columns)
    .map((field) => `'${field}', ${alias}.${columnOfField(field)}`)
    .join(', ')})`;
}

const entriesOfColumns = new WeakMap<object, [string, ColumnKind][]>();

/** A model's columns as a list, made once per model: every row read walks it (garbage per row otherwise). */
function columnEntries<Model>(columns: ModelColumns<Model>): [string, ColumnKind][] {
  let entries = entriesOfColumns.get(columns);
  if (!entries) entriesOfColumns.set(columns, (entries = Object.entries(columns) as [string, ColumnKind][]));
  return entries;
}

/** A row read by selectList or jsonObjectOf, in Prisma's shape (bigints as BigInt, timestamps as Date). */
export function modelOfRow<Model>(columns: ModelColumns<Model>, row: Record<string, unknown>): Model {
  const model: Record<string, unknown> = {};
  for (const [field, kind] of columnEntries(columns)) {
    const value = row[field];
    model[field] =
      kind === 'bigint'
        ? BigInt(value as string | number)
        : kind === 'date'
          ? dateOf(value as Date | string)
          : kind === 'date?'
            ? dateOrNull(value as Date | string | null)
            : value;
  }
  return model as Model;
}

/**
 * Field values in Prisma's names as a record for jsonb_populate_record(set): snake-case keys, bigints
 * as strings, timestamps as ISO strings; undefined fields left out (the column's default, or unchanged).
 */
export function jsonRecord(values: Record<string, unknown>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(values)) {
    if (value === undefined) continue;
    record[columnOfField(field)] =
      typeof value === 'bigint' ? value.toString() : value instanceof Date ? value.toISOString() : value;
  }
  return record;
}

/** queryRows of a statement that selects a model's columns (selectList), each row in Prisma's shape. */
export async function queryModels<Model>(
  db: Queryable,
  columns: ModelColumns<Model>,
  statement: Statement,
  values: unknown[],
): Promise<Model[]> {
  const rows = await queryRows<Record<string, unknown>>(db, statement, values);
  return rows.map((row) => modelOfRow<Model>(columns, row));
}

/**
 * The WHERE of a list's equality filters on `alias`: `alias.column = $n` for each given value (undefined: no
 * filter), numbered after `values`, which it extends.
 */
export function equalityFilters(alias: string, filters: [column: string, value: unknown][], values: unknown[]): string {
  const parts: string[] = [];
  for (const [column, value] of filters) {
    if (value === undefined) continue;
    values.push(value);
    parts.push(`${alias}.${column} = $${values.length}`);
  }
  return parts.join(' AND ');
}

/** Where an item sits in a newest-first list ordered by (created_at, id): a cursor's sort values. */
export interface ListPosition {
  id: string;
  createdAt: Date;
}

/**
 * The position of item `id` of the account, read by `statement` (`SELECT id, created_at ... WHERE id = $1
 * AND account_id = $2`), or null: unknown, or another account's.
 */
export async function readListPosition(
  db: Queryable,
  statement: Statement,
  accountId: string,
  id: string,
): Promise<ListPosition | null> {
  const [row] = await queryRows<{ id: string; created_at: Date }>(db, statement, [id, accountId]);
  return row ? { id: row.id, createdAt: row.created_at } : null;
}

/**
 * The end of a newest-first list's statement at an offset (`ORDER BY a DESC, b DESC LIMIT $ OFFSET $`), or after
 * (`forward`) or before a cursor's sort values `at` (`AND (a, b) < ($, $) ORDER BY a DESC, b DESC LIMIT $`,
 * before: `>` and ascending), one range of an index ending in (a, b); values numbered after `values`.
 */
export function newestFirstWindow(
  keys: [string, string],
  values: unknown[],
  window: { take: number; skip: number } | { at: [unknown, unknown]; forward: boolean; take: number },
): string {
  const order = (dir: string) => `ORDER BY ${keys[0]} ${dir}, ${keys[1]} ${dir}`;
  if ('skip' in window) {
    values.push(window.take, window.skip);
    return `${order('DESC')} LIMIT $${values.length - 1} OFFSET $${values.length}`;
  }
  values.push(...window.at, window.take);
  const n = values.length;
  const [op, dir] = window.forward ? ['<', 'DESC'] : ['>', 'ASC'];
  return `AND (${keys.join(', ')}) ${op} ($${n - 2}, $${n - 1}) ${order(dir)} LIMIT $${n}`;
}

/**
 * A newest-first list of `table` ordered by (created_at, id), filtered by equality (`filters`, an undefined
 * value no filter; the first is the account): the statement of the ids of `take` rows after (`forward`) or
 * before `at`, one range of the table's index (account_id, [filter], created_at, id). `table` is a name from
 * code, never from a request.
 */
export function idsAfterPositionStatement(
  table: string,
  filters: [column: string, value: unknown][],
  window: { at: ListPosition; forward: boolean; take: number },
): BoundStatement {
  const values: unknown[] = [];
  const where = equalityFilters('r', filters, values);
  const text = `SELECT r.id FROM ${table} r WHERE ${where} ${newestFirstWindow(['r.created_at', 'r.id'], values, {
    at: [window.at.createdAt, window.at.id],
    forward: window.forward,
    take: window.take,
  })}`;
  return { statement: statementOf(`${table}_after`, text), values };
}

/** The ids idsAfterPositionStatement's `bound` reads, in its order. */
export async function readIdsAfterPosition(db: Queryable, bound: BoundStatement): Promise<string[]> {
  return (await queryBound<{ id: string }>(db, bound)).map((row) => row.id);
}

/** Where row `id` of the account sits in such a list of `table`, or null (unknown, or another account's). */
export function readCreatedPosition(
  db: Queryable,
  table: string,
  accountId: string,
  id: string,
): Promise<ListPosition | null> {
  const text = `SELECT r.id, r.created_at FROM ${table} r WHERE r.id = $1 AND r.account_id = $2`;
  return readListPosition(db, statementOf(`${table}_position`, text), accountId, id);
}

/**
 * A cursor page's rows: the ids `bound` (an idsAfterPositionStatement) reads from the index, the rows `load`
 * reads by those ids (with what the list shows of each), in the page's order.
 */
export async function readRowsAfterPosition<Row extends { id: string }>(
  db: Queryable,
  bound: BoundStatement,
  load: (ids: string[]) => Promise<Row[]>,
): Promise<Row[]> {
  const ids = await readIdsAfterPosition(db, bound);
  return inOrderOf(ids, await load(ids));
}

/** `rows` in the order of `ids` (a page read by its ids), leaving out ids with no row. */
export function inOrderOf<Row extends { id: string }>(ids: string[], rows: Row[]): Row[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
