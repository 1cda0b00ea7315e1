import './zod-openapi';
import { z } from 'zod';
import { ApiError } from './errors';

/** Turns the first zod issue into a 400 that names the field (`param`) and says what is wrong. */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

type Issue = z.core.$ZodIssue;

/** The message zod gives a union that has none of its own. */
const DEFAULT_UNION_MESSAGE = 'Invalid input';

/**
 * The shape of a failed either-or (`oneOf` below, or any union) the input came closest to: one that
 * finds no fields of another shape in it, else the one that finds the fewest; then the one with the
 * fewest other problems; then the first.
 */
function closestBranch(branches: Issue[][]): Issue[] {
  const distance = (issues: Issue[]) =>
    issues.reduce(
      (total, issue) =>
        total + (issue.code === 'unrecognized_keys' && issue.path.length === 0 ? 1000 + issue.keys.length : 1),
      0,
    );
  return branches.reduce((best, branch) => (distance(branch) < distance(best) ? branch : best));
}

interface Problem {
  path: string[];
  code: string;
  message: string;
}

function describeIssue(issue: Issue, input: unknown, prefix: PropertyKey[]): Problem {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // Name the field of the closest shape that is wrong, and say the either-or rule (the union's message) with it.
    const closest = closestBranch(issue.errors);
    const inner = describeIssue(closest[0]!, input, path);
    const rule = issue.message === DEFAULT_UNION_MESSAGE ? undefined : issue.message;
    if (!rule) return inner;
    if (inner.code === 'parameter_unknown') {
      // A field of another shape, given with this one's: invalid here. A field of no shape stays unknown.
      const key = inner.path.at(-1)!;
      const unknownTo = (issues: Issue[]) =>
        issues.some(
          (other) => other.code === 'unrecognized_keys' && other.path.length === 0 && other.keys.includes(key),
        );
      if (issue.errors.every(unknownTo)) return inner;
      return { ...inner, code: 'parameter_invalid', message: `not allowed with the other fields given: ${rule}` };
    }
    return { ...inner, message: `${inner.message}: ${rule}` };
  }
  if (issue.code === 'unrecognized_keys') {
    return {
      path: [...path, issue.keys[0]!].map(String),
      code: 'parameter_unknown',
      message: 'Unknown field (unknown fields are rejected)',
    };
  }
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && valueAt(input, path) === undefined) {
    return { path: path.map(String), code: 'parameter_missing', message: 'Required' };
  }
  return { path: path.map(String), code: 'parameter_invalid', message: issue.message };
}

export function zodErrorToApiError(error: z.ZodError, location: 'body' | 'query' | 'path', input?: unknown): ApiError {
  const { path, code, message } = describeIssue(error.issues[0]!, input, []);
  const param = path.join('.') || location;
  return new ApiError('invalid_request_error', code, `Invalid ${location} parameter '${param}': ${message}`, param);
}

/**
 * A request field (or body) that takes exactly one of two or more shapes: z.xor
 * refuses input that matches none of them or several, and /openapi.json states `oneOf`, so the two
 * cannot drift. Give the shapes as strict objects that tell each other apart by their fields. `rule`
 * says the either-or in words; a 400 names the wrong field of the closest shape and adds `rule`.
 */
export function oneOf<const T extends readonly [z.ZodType, z.ZodType, ...z.ZodType[]]>(shapes: T, rule: string) {
  return z.xor(shapes, { error: rule }).openapi({ description: rule }, { unionPreferredType: 'oneOf' });
}

export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Where `input` holds text PostgreSQL cannot store or that is not Unicode: a NUL (U+0000) or a lone
 * UTF-16 surrogate, in a value or a key. Returns the path to the first such place, or undefined.
 */
export function findMalformedText(
  input: unknown,
  path: string[] = [],
): { path: string[]; problem: string } | undefined {
  const found = malformedIn(input);
  return found ? { path: [...path, ...found.pathFromEnd.reverse()], problem: found.problem } : undefined;
}

function problemOf(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  return LONE_SURROGATE.test(text) ? 'must not contain a lone UTF-16 surrogate' : undefined;
}

/**
 * findMalformedText's walk: the path is built only on the way back from a find, innermost key first, so a
 * clean body (a batch of 1,000 usage events) allocates nothing per value.
 */
function malformedIn(input: unknown): { pathFromEnd: string[]; problem: string } | undefined {
  if (typeof input === 'string') {
    const problem = problemOf(input);
    return problem ? { pathFromEnd: [], problem } : undefined;
  }
  if (input === null || typeof input !== 'object') return undefined;
  const record = input as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const keyProblem = problemOf(key);
    if (keyProblem) return { pathFromEnd: [key], problem: `name ${keyProblem}` };
    const found = malformedIn(record[key]);
    if (found) {
      found.pathFromEnd.push(key);
      return found;
    }
  }
  return undefined;
}

/**
 * Validates one part of a request: malformed text anywhere first, then the schema; 400 naming the field.
 * `commonShape`, where a route has one, checks the shape most requests take more cheaply than the schema and
 * answers the schema's output, or undefined to leave the input to the schema (which then names the field).
 */
export function parseOrThrow<T extends z.ZodType>(
  schema: T,
  input: unknown,
  location: 'body' | 'query' | 'path',
  commonShape?: (input: unknown) => z.output<T> | undefined,
): z.output<T> {
  const malformed = findMalformedText(input);
  if (malformed) {
    const param = malformed.path.join('.') || location;
    throw new ApiError(
      'invalid_request_error',
      'parameter_invalid',
      `Invalid ${location} parameter '${param}': ${malformed.problem}`,
      param,
    );
  }
  const common = commonShape?.(input);
  if (common !== undefined) return common;
  const result = schema.safeParse(input);
  if (!result.success) throw zodErrorToApiError(result.error, location, input);
  return result.data;
}

/**
 * Characters a name may not hold: controls (Cc), invisible format characters (Cf: zero-width space,
 * BOM, soft hyphen, bidi controls...) but the zero-width joiner and non-joiner that emoji and some
 * scripts need, line and paragraph separators, and the Hangul fillers that render as nothing.
 */
const INVISIBLE = /(?![\u200C\u200D])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]/u;

/**
 * A name (product, customer, tax rate display name): NFC-normalized and trimmed before it is checked
 * and stored, so names that differ only by normalization or surrounding spaces are one name; a
 * control or invisible character anywhere is 400 naming the field (docs/api.md "Conventions").
 */
export function nameText(max: number) {
  return z
    .preprocess(
      (value) => (typeof value === 'string' ? value.normalize('NFC').trim() : value),
      z
        .string()
        .min(1, 'must not be empty or blank')
        .max(max, `must be at most ${max} characters`)
        .refine(
          (value) => !INVISIBLE.test(value),
          'must not contain control or invisible characters (line breaks, tabs, zero-width spaces...)',
        ),
    )
    .describe(`1 to ${max} characters, NFC-normalized and trimmed; control and invisible characters are refused`);
}

/** Resource ids in paths: the spec's `^[a-z]+_[a-zA-Z0-9]+$`. */
export const RESOURCE_ID = /^[a-z]+_[a-zA-Z0-9]+$/;
export const MAX_RESOURCE_ID_LENGTH = 64;
export const resourceId = z.string().regex(RESOURCE_ID, 'must match ^[a-z]+_[a-zA-Z0-9]+$').max(MAX_RESOURCE_ID_LENGTH);

/**
 * `include=names` on a list or a retrieve: each object also carries the names of what it refers to (its
 * customer's, its product's, its invoice's number), read in one statement per kind for the whole page, so a
 * screen shows names without a call per row (docs/api.md, "Names on list rows").
 */
export const includeNamesQuery = {
  include: z
    .enum(['names'])
    .optional()
    .describe('names: each object also carries the names of what it refers to (docs/api.md, "Names on list rows")'),
};

/** Query strings carry text; `true`/`false` become booleans, anything else is refused. */
export const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

/** 9999-12-31T23:59:59Z: the last second PostgreSQL timestamps and ISO 8601 dates share. */
export const MAX_UNIX_SECONDS = 253_402_300_799;

/** A date in a body: positive Unix seconds before the year 10000. */
export const unixSeconds = z
  .number()
  .int('must be an integer (Unix seconds)')
  .min(1, 'must be positive Unix seconds')
  .max(MAX_UNIX_SECONDS, 'must be before the year 10000');

/** A date filter bound (`created.gt` and the like): Unix seconds from 0 to the end of the year 9999. */
export const unixSecondsBound = z
  .number()
  .int('must be an integer (Unix seconds)')
  .min(0, 'must be at least 0')
  .max(MAX_UNIX_SECONDS, 'must be before the year 10000');

/** A time in an answer: integer Unix seconds (`created` and the like). */
export const unixTime = z.number().int().min(0).describe('Unix seconds');

/**
 * A whole number in a query string: decimal digits only, with an optional `-` (docs/api.md
 * "Conventions"), so `0x10`, `1e3`, `1.0`, ` 1` and a blank `take=` are refused with 400 naming the
 * parameter instead of being read as a number by JavaScript's rules. The document states the inner
 * schema (`type: integer` and its bounds).
 */
export function queryInteger<T extends z.ZodType<number>>(schema: T) {
  return z.preprocess(
    (value) => (typeof value === 'string' && /^-?[0-9]+$/.test(value) ? Number(value) : value),
    schema,
  );
}

/** An integer's invalid_type message: a query value that is not decimal digits lands here. */
export const DECIMAL_INTEGER = { error: 'must be a decimal integer' } as const;

/** The same bound in a query string (`created_gt=...`). */
export const queryUnixSeconds = queryInteger(
  z
    .number(DECIMAL_INTEGER)
    .int('must be an integer (Unix seconds)')
    .min(0, 'must be at least 0')
    .max(MAX_UNIX_SECONDS, 'must be before the year 10000'),
);
