/**
 * The record boundary for text columns that hold one of a few values (statuses, types, kinds).
 * PostgreSQL stores them as text and Prisma types them `string`; this narrows a value read from a
 * row to its union, and a value outside it (a corrupt row, a migration that forgot a value) fails
 * loudly where it is read instead of travelling on under a false type.
 */
export function columnValue<const T extends readonly string[]>(allowed: T, value: string, column: string): T[number] {
  if ((allowed as readonly string[]).includes(value)) return value as T[number];
  throw new Error(`Column ${column} holds ${JSON.stringify(value)}, not one of ${allowed.join(', ')}.`);
}

/** columnValue for a nullable column. */
export function nullableColumnValue<const T extends readonly string[]>(
  allowed: T,
  value: string | null,
  column: string,
): T[number] | null {
  return value === null ? null : columnValue(allowed, value, column);
}
