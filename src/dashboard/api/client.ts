import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../../client/schema';
import type { DashboardPaths } from './dashboard-paths';

/**
 * The dashboard calls the same REST endpoints merchants call, through the client generated from /openapi.json
 * (openapi-fetch over src/client/schema.d.ts, as src/client/index.ts), so the compiler checks every path, body
 * and answer; its own endpoints under /dashboard/api are typed by ./dashboard-paths.ts. What every call of the
 * dashboard shares is said once here (docs/decisions.md §19): the session cookie (sent by the browser), the
 * session's CSRF token on writes, the sign-in page once the session has ended, and a refusal thrown as an
 * ApiFailure that names the field in `param`. Idempotency-Keys are the operations' own header parameter.
 */
export interface ApiErrorBody {
  type: string;
  code: string;
  message: string;
  param?: string;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: ApiErrorBody,
  ) {
    super(error.message);
  }
}

/** A refusal the form finds before asking (an amount that is not money), shown beside its field as the API's would be. */
export function fieldFailure(param: string, message: string): ApiFailure {
  return new ApiFailure(400, { type: 'invalid_request_error', code: 'parameter_invalid', message, param });
}

let csrfToken: string | undefined;
let onSignedOut: () => void = () => undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when an answer says the session has ended, so the app shows the sign-in page. */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/**
 * A new Idempotency-Key (docs/api.md "Idempotency"): one per thing a person means to do once, sent
 * with every request for it, so a double click, a second submit or a retry after a lost answer
 * creates, charges or refunds once. 128 random bits, from crypto.getRandomValues (randomUUID needs a
 * secure context).
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

const session: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && csrfToken) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
  onResponse({ response, schemaPath }) {
    // The session endpoints answer 401 to a wrong password too: only another endpoint's 401 means it ended.
    if (response.status === 401 && !schemaPath.startsWith('/dashboard/api/session')) onSignedOut();
  },
  onError() {
    return new ApiFailure(0, {
      type: 'api_error',
      code: 'unreachable',
      message: 'The service could not be reached. Try again.',
    });
  },
};

const client = createClient<paths & DashboardPaths>({ credentials: 'same-origin' });
client.use(session);

type Answer<Result> = Result extends { data: infer Data; error?: never } ? Data : never;

/** A method of the client that answers the operation's success body, or throws the refusal as an ApiFailure. */
function answering<Args extends unknown[], Result extends { error?: unknown; response: Response }>(
  method: (...args: Args) => Promise<Result>,
) {
  return async (...args: Args): Promise<Answer<Result>> => {
    const result = await method(...args);
    if (!result.response.ok) {
      const body = result.error as { error?: ApiErrorBody } | undefined;
      throw new ApiFailure(
        result.response.status,
        body?.error ?? {
          type: 'api_error',
          code: 'unknown',
          message: `The server answered ${result.response.status}.`,
        },
      );
    }
    return (result as { data?: unknown }).data as Answer<Result>;
  };
}

/** `api.GET('/customers/{externalKey}', { params: { path: { externalKey } } })` answers the customer. */
export const api = {
  GET: answering(client.GET),
  POST: answering(client.POST),
  PUT: answering(client.PUT),
  PATCH: answering(client.PATCH),
  DELETE: answering(client.DELETE),
};
