export type ErrorType =
  'invalid_request_error' | 'authentication_error' | 'permission_error' | 'not_found' | 'conflict' | 'api_error';

const STATUS_OF: Record<ErrorType, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found: 404,
  conflict: 409,
  api_error: 500,
};

/** The one error every layer throws; the error handler turns it into decisions.md §2's body. */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly param?: string,
    status?: number,
  ) {
    super(message);
    this.status = status ?? STATUS_OF[type];
  }

  /** Headers the answer carries besides the body. */
  headers(): Record<string, string> {
    return {};
  }

  /**
   * A refusal: the request or the resource's state does not allow it (bad input, unknown, forbidden,
   * conflict), as opposed to a failure of the service (api_error, unavailable). Code that carries
   * refusals on (workflows, activities, plan requests) asks this, never an HTTP status.
   */
  get refusal(): boolean {
    return this.type !== 'api_error';
  }

  toBody(): { error: { type: ErrorType; code: string; message: string; param?: string } } {
    return {
      error: { type: this.type, code: this.code, message: this.message, ...(this.param ? { param: this.param } : {}) },
    };
  }
}

/** 503: a dependency (PostgreSQL, Temporal) does not answer; the answer carries `Retry-After`. */
export class ServiceUnavailableError extends ApiError {
  constructor(
    code: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('api_error', code, message, undefined, 503);
  }

  override headers(): Record<string, string> {
    return { 'Retry-After': String(this.retryAfterSeconds) };
  }
}

/** 429: the API key sent more requests than its rate limit (src/http/rate-limit.ts); the answer carries `Retry-After`. */
export class RateLimitedError extends ApiError {
  constructor(
    readonly retryAfterSeconds: number,
    message = 'Too many requests with this API key; retry after the Retry-After seconds.',
  ) {
    super('invalid_request_error', 'rate_limit', message, undefined, 429);
  }

  override headers(): Record<string, string> {
    return { 'Retry-After': String(this.retryAfterSeconds) };
  }
}

/** 405: the path exists but not with this method; the answer carries `Allow`. */
export class MethodNotAllowedError extends ApiError {
  constructor(
    method: string,
    path: string,
    readonly allowed: string[],
  ) {
    super(
      'invalid_request_error',
      'method_not_allowed',
      `${path} does not answer ${method}; it answers ${allowed.join(', ')}.`,
      undefined,
      405,
    );
  }

  override headers(): Record<string, string> {
    return { Allow: this.allowed.join(', ') };
  }
}

export const badRequest = (message: string, param?: string, code = 'parameter_invalid') =>
  new ApiError('invalid_request_error', code, message, param);

export const notFound = (resource: string, id: string, param = 'id') =>
  new ApiError('not_found', 'resource_missing', `No such ${resource}: '${id}'`, param);

/**
 * `row`, or the 404 that names it: records answer null for a row the account does not have (docs/architecture.md,
 * "Modules"), and the service says what that is to the client.
 */
export function orNotFound<Row>(row: Row | null, resource: string, id: string, param = 'id'): Row {
  if (row === null) throw notFound(resource, id, param);
  return row;
}

export const conflict = (message: string, code = 'invalid_state') => new ApiError('conflict', code, message);

export const forbidden = (message: string, code = 'forbidden') => new ApiError('permission_error', code, message);

/** A refusal (see ApiError.refusal), whatever layer threw it. */
export function isRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && error.refusal;
}
