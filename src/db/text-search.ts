/**
 * A case-insensitive "contains" filter that matches `text` literally. Prisma passes `contains` to
 * PostgreSQL's ILIKE as is, so `%` and `_` would act as wildcards; they and the
 * escape character `\` are escaped here.
 */
export function containsText(text: string): { contains: string; mode: 'insensitive' } {
  return { contains: text.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' };
}

/** The same "contains" as a LIKE pattern for SQL of our own (`ILIKE $n`, `\` the default escape). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, '\\$&')}%`;
}
