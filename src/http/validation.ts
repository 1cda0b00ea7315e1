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

export function zodErrorToApiError(error: z.ZodError, location: 'body' | 'query' | 'path', input?: unknown): ApiError {
  const issue = error.issues[0]!;
  let path = issue.path.map(String);
  let code = 'parameter_invalid';
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    path = [...path, issue.keys[0]!];
    code = 'parameter_unknown';
    message = `Unknown field (unknown fields are rejected)`;
  } else if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && valueAt(input, issue.path) === undefined) {
    code = 'parameter_missing';
    message = 'Required';
  }
  const param = path.join('.') || location;
  return new ApiError('invalid_request_error', code, `Invalid ${location} parameter '${param}': ${message}`, param);
}

export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown, location: 'body' | 'query' | 'path'): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw zodErrorToApiError(result.error, location, input);
  return result.data;
}

/** Resource ids in paths: the spec's `^[a-z]+_[a-zA-Z0-9]+$`. */
export const resourceId = z
  .string()
  .regex(/^[a-z]+_[a-zA-Z0-9]+$/, 'must match ^[a-z]+_[a-zA-Z0-9]+$')
  .max(64);

/** Query strings carry text; `true`/`false` become booleans, anything else is refused. */
export const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');
