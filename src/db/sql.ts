import type { Db, Tx } from './prisma';
import { poolOf } from './prisma';
import { sqlClientOf } from './sql-transaction';

/** A fixed SQL text with a name: prepared once per connection, then only executed. */
export interface Statement {
  name: string;
  text: string;
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

/**
 * Runs one statement on the pool under `prisma` without Prisma's query pipeline. Measured on this
 * machine (Performance in the README): a single-row `findFirst` costs about 1.3 ms of CPU in Prisma
 * 6's client engine (its query compiler runs in WebAssembly per call) and `$queryRaw` about 0.4 ms,
 * a prepared statement on the same pg pool about 0.1 ms. For the hot paths only (authenticated reads,
 * webhook attempts, a subscription's creation, the reads and writes of a payment: docs/performance.md),
 * each one statement, atomic by itself; everything else stays in Prisma. Falls back to
 * `$queryRawUnsafe` on a client made elsewhere and in a transaction, where it runs inside that
 * transaction (Prisma's raw path, about 0.4 ms, not prepared).
 */
/** On a client from createPrisma: prepared on its pool. In a transaction (or on another client): Prisma's raw path. */
export async function queryRows<Row>(prisma: Db | Tx, statement: Statement, values: unknown[]): Promise<Row[]> {
  // In sqlTransaction: prepared on its client, inside it.
  const client = sqlClientOf(prisma);
  if (client) return (await client.query({ name: statement.name, text: statement.text, values })).rows as Row[];
  const pool = poolOf(prisma as Db);
  if (!pool) return prisma.$queryRawUnsafe<Row[]>(statement.text, ...values);
  const result = await pool.query({ name: statement.name, text: statement.text, values });
  return result.rows as Row[];
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

/** A row read by selectList or jsonObjectOf, in Prisma's shape (bigints as BigInt, timestamps as Date). */
export function modelOfRow<Model>(columns: ModelColumns<Model>, row: Record<string, unknown>): Model {
  const model: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(columns) as [string, ColumnKind][]) {
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
  db: Db | Tx,
  columns: ModelColumns<Model>,
  statement: Statement,
  values: unknown[],
): Promise<Model[]> {
  const rows = await queryRows<Record<string, unknown>>(db, statement, values);
  return rows.map((row) => modelOfRow<Model>(columns, row));
}
