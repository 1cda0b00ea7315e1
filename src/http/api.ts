import { isUtf8 } from 'node:buffer';
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import './zod-openapi';
import type { Db } from '../db/prisma';
import type { Principal, Role } from './auth';
import { rateLimitSubject, requireRole } from './auth';
import { ApiError, MethodNotAllowedError } from './errors';
import { idempotencyHeaders, readIdempotencyKey, withIdempotency } from './idempotency';
import { parseOrThrow } from './validation';
import { addExamples } from './openapi-examples';
import { INITIAL_WINDOW_BYTES, sendCompressed } from './compression';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnyObject = z.ZodObject<z.ZodRawShape>;

export interface HandlerContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  principal: Principal;
  req: Request;
  res: Response;
  /** The Idempotency-Key header of a POST or PUT, if sent (src/http/idempotency.ts). */
  idempotencyKey?: string;
  /** With an Idempotency-Key: the same for a retry that takes over a request that died, new after the key's window (idempotency.ts claimSeed). */
  idempotencySeed?: string;
}

export interface RouteDefinition<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  method: Method;
  /** OpenAPI-style path, e.g. `/customers/{externalKey}`. */
  path: string;
  summary: string;
  tag: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * A cheaper check of the body's common shape than `body`'s schema (a batch of 1,000 usage events): the
   * schema's output when the body is surely valid, undefined to validate it with the schema. It must accept
   * nothing the schema refuses (docs/performance.md, "Usage ingestion").
   */
  bodyCommonShape?: (input: unknown) => z.output<B> | undefined;
  /** Roles allowed to call the route; every role when absent. */
  roles?: readonly Role[];
  /**
   * Callable with a dashboard session only, never a key (users, memberships and invitations, which a
   * key has none of: docs/decisions.md §21); documented with the `session` scheme alone, never cached.
   */
  sessionOnly?: boolean;
  /** Checked after authentication and before validation, e.g. that the account has a feature on. */
  guard?: (principal: Principal) => Promise<void>;
  /** Status of a successful answer (200 unless given). */
  status?: number;
  /** Other success statuses the handler may answer with `new Answer(status, body)` (same body schema), and what each means. */
  otherStatuses?: Record<number, string>;
  response: z.ZodType;
  /**
   * The success answer's media type when it is not JSON (`application/pdf`): the handler answers a
   * `FileAnswer`, sent as it is with that Content-Type; `response` documents it (a binary string). A
   * media range (`ANY_MEDIA_TYPE`) documents files that each carry their own type (`FileAnswer.contentType`).
   */
  mediaType?: string;
  /**
   * What a path parameter that does not parse answers: 404 (default: an id that cannot exist names
   * no resource, exactly like an unknown one, docs/api.md "Conventions"), or 400 where the contract
   * gives the path a pattern with 400 (`/products/{id}`).
   */
  malformedPath?: 400 | 404;
  /** Error statuses worth documenting besides 400/401. */
  errors?: number[];
  handler: (ctx: HandlerContext<z.output<P>, z.output<Q>, z.output<B>>) => Promise<unknown>;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: `error.param` names the field',
  401: 'Missing or unknown cc-api-key (or a dashboard session that has ended)',
  403: 'The key, the user or the account may not do this; or a write made with a dashboard session lacks its CSRF token or comes from another origin',
  404: 'Unknown resource, or one of another account',
  405: 'The path does not answer this method; `Allow` lists those it answers',
  409: "The resource's state forbids the action",
  413: 'The request body is larger than 1 MB',
  415: 'The request body is not `application/json`',
  429: 'Too many requests with this API key (`code: rate_limit`): retry after `Retry-After` seconds',
  431: 'The request line and headers are larger than 64 KB',
  500: 'An unexpected error (logged with the request id)',
  503: 'PostgreSQL or Temporal does not answer: retry after `Retry-After` seconds',
};

/** Largest JSON body a request may carry. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * JSON bodies must be valid UTF-8 (docs/api.md "Protocol"): body-parser would decode bad bytes as
 * U+FFFD and store them; the check throws instead, and src/app.ts answers 400 `body_not_utf8`. The bytes
 * are checked without being decoded (body-parser decodes them next): a fatal TextDecoder's decode took
 * about 0.5 ms of a 1,000-event batch (docs/performance.md, "Usage ingestion").
 */
const jsonBody = express.json({
  limit: MAX_BODY_BYTES,
  verify: (_req, _res, buffer) => {
    if (!isUtf8(buffer))
      throw Object.assign(new Error('The request body is not valid UTF-8.'), { type: 'body.not_utf8' });
  },
});

/** 415 for a body that is not JSON; no body at all (no Content-Length or 0) is fine. */
export function requireJsonBody(req: Request, _res: Response, next: (error?: unknown) => void): void {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is('application/json')) {
    next(
      new ApiError(
        'invalid_request_error',
        'unsupported_media_type',
        'The request body must be JSON, sent with Content-Type: application/json.',
        'Content-Type',
        415,
      ),
    );
    return;
  }
  next();
}

/**
 * zod's `.int()` accepts only safe integers (|n| <= 2^53 - 1); the document says so on every integer
 * without a tighter bound of its own, so a request valid by the document is not refused for it.
 */
function boundIntegers<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(boundIntegers);
  else if (node && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    const isInteger = schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));
    if (isInteger) {
      if (schema.maximum === undefined && schema.exclusiveMaximum === undefined)
        schema.maximum = Number.MAX_SAFE_INTEGER;
      if (schema.minimum === undefined && schema.exclusiveMinimum === undefined)
        schema.minimum = Number.MIN_SAFE_INTEGER;
    }
    Object.values(schema).forEach(boundIntegers);
  }
  return node;
}

/** The query schema of a route that takes no query parameter: any is 400 `parameter_unknown` naming it. */
const NO_QUERY = z.strictObject({});

/** NO_QUERY's answer: most requests to such a route carry no query, which needs no schema to be found empty. */
function noQuery(input: unknown): Record<string, never> {
  for (const _name in input as object) return parseOrThrow(NO_QUERY, input, 'query');
  return {};
}

/** Path parameters; one that does not parse is 404 `resource_missing` naming it, or 400 where the route says so. */
function parsePath<P extends AnyObject>(schema: P, input: unknown, malformed: 400 | 404, path: string): z.output<P> {
  try {
    return parseOrThrow(schema, input, 'path');
  } catch (error) {
    if (malformed === 400 || !(error instanceof ApiError) || !error.param) throw error;
    const value = (input as Record<string, unknown>)[error.param];
    throw new ApiError(
      'not_found',
      'resource_missing',
      `No such ${resourceOfParam(path, error.param)}: '${String(value ?? '').slice(0, 100)}'`,
      error.param,
    );
  }
}

/** What a path parameter names, from the segment before it: `/customers/{externalKey}` -> `customer`. */
function resourceOfParam(path: string, param: string): string {
  const segments = path.split('/');
  const index = segments.indexOf(`{${param}}`);
  const collection = index > 0 ? segments[index - 1]! : 'object';
  return collection.replace(/s$/, '').replace(/-/g, ' ');
}

/**
 * Errors any operation may answer, documented on each: a body too large or not JSON where there is a
 * body, the key's rate limit, headers too large (src/server.ts), an unexpected error, a dependency down.
 */
function commonErrorStatuses(hasBody: boolean): number[] {
  return [...(hasBody ? [413, 415] : []), 429, 431, 500, 503];
}

const retryAfterHeader = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' as const } },
};
const allowHeader = { Allow: { description: 'The methods the path answers', schema: { type: 'string' as const } } };

export const errorBodySchema = z
  .object({
    error: z.object({
      type: z.enum([
        'invalid_request_error',
        'authentication_error',
        'permission_error',
        'not_found',
        'conflict',
        'api_error',
      ]),
      code: z.string(),
      message: z.string(),
      param: z.string().optional(),
    }),
  })
  .meta({ id: 'Error' });

/**
 * `operationId` of a route: the method and the path's words, a path parameter as `By<Name>`, e.g.
 * `get /customers/{externalKey}` -> `getCustomersByExternalKey` (unique, since method and path are).
 */
export function operationIdOf(method: string, path: string): string {
  const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const parameter = /^\{(\w+)\}$/.exec(segment);
      return parameter ? `By${pascal(parameter[1]!)}` : segment.split(/[-_.]/).map(pascal).join('');
    });
  return method.toLowerCase() + words.join('');
}

/**
 * A path's first segment as routes are matched: without case (Express matches paths in any case), empty
 * for `/`. Every template's first segment is a literal (`/customers/{externalKey}`: `customers`).
 */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

/** A write the API answered with success (not a replay of an Idempotency-Key): what the audit log records. */
export interface CompletedWrite {
  principal: Principal;
  method: Method;
  /** The operation's path template. */
  route: string;
  path: string;
  status: number;
  params: Record<string, unknown>;
  body: unknown;
  requestId: string;
}

/** A handler's answer with a success status other than the route's own (declared in `otherStatuses`). */
export class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/** A file a route with `mediaType` answers: its bytes and the name a browser saves it under. */
export class FileAnswer {
  constructor(
    readonly body: Buffer,
    readonly filename: string,
    /** Its own type, where the route's `mediaType` is a family (`application/octet-stream`). */
    readonly contentType?: string,
  ) {}
}

/** What a file of no stated type is sent as. */
const OCTET_STREAM = 'application/octet-stream';

/** The media range of a route whose files each carry their own type (RFC 9110: any type). */
export const ANY_MEDIA_TYPE = '*/*';

/** The schema a route with `mediaType` documents its answer with. */
export const binaryFileSchema = z.string().meta({ format: 'binary' });

/** A route's file answer, with its own type, the route's, or the octet stream's. */
function sendFile(res: Response, status: number, file: FileAnswer, mediaType: string | undefined): void {
  sendCompressed(res.req, res, () =>
    res
      .status(status)
      .type(file.contentType ?? (mediaType === ANY_MEDIA_TYPE ? undefined : mediaType) ?? OCTET_STREAM)
      .setHeader('Content-Disposition', `inline; filename="${file.filename.replace(/[^\w.-]/g, '_')}"`)
      .send(file.body),
  );
}

/**
 * A JSON answer, as `res.status(status).json(body)` sends it (`application/json; charset=utf-8`, its Content-Length;
 * no ETag: src/app.ts turns them off, so no request is fresh) without Express's steps around it: the Content-Type
 * set, read back, parsed and formatted again to add its charset (docs/performance.md, "Reads, second pass"). A
 * status without a body (204, 304), a HEAD request and an answer of no value still take Express's path, which sends
 * them as it does. Compressed as compressAnswers would (src/http/compression.ts, decided here for the API's requests).
 */
function sendJson(res: Response, status: number, body: unknown): void {
  if (
    status === 204 ||
    status === 304 ||
    body === undefined ||
    res.req.method === 'HEAD' ||
    res.hasHeader('Content-Type')
  ) {
    sendCompressed(res.req, res, () => res.status(status).json(body));
    return;
  }
  const text = JSON.stringify(body);
  const length = Buffer.byteLength(text);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', length);
  // A JSON answer shorter than the initial window is never compressed (src/http/compression.ts): no need to ask.
  if (length < INITIAL_WINDOW_BYTES) res.end(text);
  else sendCompressed(res.req, res, () => res.end(text));
}

/** What a handler's result answers: null when the handler sent its answer itself, else its status and body. */
function answerOf(res: Response, status: number, result: unknown): { status: number; body: unknown } | null {
  if (res.headersSent) return null;
  return result instanceof Answer ? { status: result.status, body: result.body } : { status, body: result };
}

/**
 * Routes are declared once: the same zod schemas validate the request and describe it in
 * /openapi.json, so the document cannot drift from what the server accepts.
 */
export class Api {
  /**
   * Every route of the API, for `app.use`: the method gate, then the routes of the request's resource. A function
   * rather than a router of its own: a router's setup on each request it enters was one more for every API request.
   */
  readonly router: express.RequestHandler = (req, res, next) => {
    if (!this.methodGate(req, res, next)) return;
    const routes = this.segmentRouters.get(firstSegment(req.path));
    if (routes) routes(req, res, next);
    else next();
  };
  readonly registry = new OpenAPIRegistry();
  /**
   * The routes by their path's first segment, each segment's in the order declared: a request walks the
   * routes of its own resource only, not the 140 before it (docs/performance.md, "Reads by resource").
   * A path's first segment is always a literal, so no route of one segment can match another's path.
   */
  private readonly segmentRouters = new Map<string, express.Router>();

  constructor(
    readonly prisma: Db,
    /** The request's credential: `cc-api-key`, or a dashboard session cookie (src/app.ts chooses); the session alone for a `sessionOnly` route. */
    private readonly authenticate: (req: Request, res: Response, sessionOnly: boolean) => Promise<Principal>,
    /** Throws (or rejects with) 429 once the credential has spent its limit; synchronous in src/app.ts. */
    private readonly rateLimit: (keyId: string) => void | Promise<void> = () => {},
    /** Told of every successful write once its answer is sent (src/audit: the audit log). */
    private readonly onWrite: (write: CompletedWrite) => void = () => {},
    /** Runs every handler: what its work leaves to tell once committed is told before the answer (src/app.ts). */
    private readonly aroundHandler: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
  ) {
    this.registry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'cc-api-key' });
    this.registry.registerComponent('securitySchemes', 'session', {
      type: 'apiKey',
      in: 'cookie',
      name: 'cc_session',
      description:
        'A dashboard session (POST /dashboard/api/session); writes also need its csrf_token in x-csrf-token. docs/api.md "Dashboard sessions".',
    });
    // Answered for any documented path asked with a method it does not serve, so listed once here.
    this.registry.registerComponent('responses', 'MethodNotAllowed', {
      description: ERROR_DESCRIPTIONS[405]!,
      headers: allowHeader,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
  }

  route<P extends AnyObject, Q extends AnyObject, B extends z.ZodType>(def: RouteDefinition<P, Q, B>): void {
    const status = def.status ?? 200;
    // decisions.md §11: every POST and PUT takes Idempotency-Key (a duplicate still running answers 409).
    const idempotent = def.method === 'post' || def.method === 'put';
    const malformedPath = def.malformedPath ?? 404;
    const errorStatuses = [
      ...new Set([
        400,
        401,
        ...(def.params && malformedPath === 404 ? [404] : []),
        // A write made with a dashboard session is refused without its CSRF token (src/dashboard-auth/session-auth.ts).
        ...(def.roles || def.method !== 'get' ? [403] : []),
        ...(idempotent ? [409] : []),
        ...(def.errors ?? []),
        ...commonErrorStatuses(def.body !== undefined),
      ]),
    ].sort();
    this.registry.registerPath({
      method: def.method,
      path: def.path,
      operationId: operationIdOf(def.method, def.path),
      summary: def.summary,
      description: def.description,
      tags: [def.tag],
      security: def.sessionOnly ? [{ session: [] }] : [{ apiKey: [] }, { session: [] }],
      request: {
        params: def.params,
        query: def.query,
        headers: idempotent ? idempotencyHeaders : undefined,
        // Required unless the route takes no body as `{}` (every field optional): src/http/api.ts parses a missing body as `{}`.
        body: def.body
          ? { required: !def.body.safeParse({}).success, content: { 'application/json': { schema: def.body } } }
          : undefined,
      },
      responses: {
        // 204 answers no body (RFC 9110), so it documents none.
        [status]:
          status === 204
            ? { description: 'Success' }
            : { description: 'Success', content: { [def.mediaType ?? 'application/json']: { schema: def.response } } },
        ...Object.fromEntries(
          Object.entries(def.otherStatuses ?? {}).map(([code, description]) => [
            code,
            { description, content: { 'application/json': { schema: def.response } } },
          ]),
        ),
        ...Object.fromEntries(
          errorStatuses.map((code) => [
            code,
            {
              description: ERROR_DESCRIPTIONS[code] ?? 'Error',
              headers: code === 503 || code === 429 ? retryAfterHeader : undefined,
              content: { 'application/json': { schema: errorBodySchema } },
            },
          ]),
        ),
      },
    });

    const expressPath = def.path.replace(/\{(\w+)\}/g, ':$1');
    const bodyParsers = def.body ? [requireJsonBody, jsonBody] : [];
    const routeTemplate = (_req: Request, res: Response, next: () => void) => {
      // For the request log and metrics (src/app.ts): the template, not the path with its ids.
      res.locals.route = def.path;
      next();
    };
    const segment = firstSegment(def.path);
    let routes = this.segmentRouters.get(segment);
    if (!routes) this.segmentRouters.set(segment, (routes = express.Router()));
    // A route without a body names its template in its handler: one layer fewer for the router to walk. A route with
    // one names it before the body is parsed, so that a body refused is logged under its route.
    const bodyLayers = def.body ? [routeTemplate, ...bodyParsers] : [];
    routes[def.method](expressPath, ...bodyLayers, async (req: Request, res: Response) => {
      if (!def.body) res.locals.route = def.path;
      // What a session's request answers is that user's: never kept by a cache (docs/decisions.md §21).
      if (def.sessionOnly) res.setHeader('Cache-Control', 'no-store');
      const principal = await this.authenticate(req, res, def.sessionOnly === true);
      res.locals.accountId = principal.accountId;
      const limited = this.rateLimit(rateLimitSubject(principal));
      if (limited) await limited;
      if (def.roles) requireRole(principal, def.roles);
      if (def.guard) await def.guard(principal);
      const params = def.params ? parsePath(def.params, req.params, malformedPath, def.path) : {};
      // A route without query parameters refuses any, like the others refuse unknown ones (docs/api.md "Conventions").
      const query = def.query ? parseOrThrow(def.query, req.query, 'query') : noQuery(req.query);
      const body = def.body ? parseOrThrow(def.body, req.body ?? {}, 'body', def.bodyCommonShape) : undefined;
      const idempotencyKey = idempotent ? readIdempotencyKey(req) : undefined;
      type Context = HandlerContext<z.output<P>, z.output<Q>, z.output<B>>;
      const handle = (idempotencySeed?: string) =>
        this.aroundHandler(() =>
          def.handler({ params, query, body, principal, req, res, idempotencyKey, idempotencySeed } as Context),
        );
      // Without an Idempotency-Key (every read) the handler's result is answered as it comes, without the closure and
      // the promise of withIdempotency's `run` around it (docs/performance.md, "Reads, fourth pass").
      const answer = idempotencyKey
        ? await withIdempotency(this.prisma, principal.accountId, idempotencyKey, req, async (seed) =>
            answerOf(res, status, await handle(seed)),
          )
        : answerOf(res, status, await handle());
      if (!answer || res.headersSent) return;
      if (answer.body instanceof FileAnswer) {
        sendFile(res, answer.status, answer.body, def.mediaType);
        return;
      }
      const replayed = 'replayed' in answer && answer.replayed;
      if (replayed) res.setHeader('Idempotent-Replayed', 'true');
      sendJson(res, answer.status, answer.body);
      if (def.method !== 'get' && !replayed && answer.status < 300)
        this.onWrite({
          principal,
          method: def.method,
          route: def.path,
          path: req.path,
          status: answer.status,
          params,
          body: answer.body,
          requestId: String(res.locals.requestId ?? ''),
        });
    });
  }

  /** Whether some route's path starts with this segment (lower case, as `firstSegment` gives it). */
  servesSegment(segment: string): boolean {
    return this.segmentRouters.has(segment);
  }

  /** Every operation the routers serve, as `method /path/{param}` (what test/api/openapi.test.ts holds the document to). */
  servedOperations(): string[] {
    return [...this.segmentRouters.values()].flatMap((routes) =>
      routes.stack.flatMap((layer) => {
        const route = layer.route as unknown as { path: string; methods: Record<string, boolean> } | undefined;
        if (!route) return [];
        return Object.keys(route.methods).map((method) => `${method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
      }),
    );
  }

  /**
   * The methods (upper case, HEAD with GET) of the documented operations whose path matches `path`
   * the way Express matches it (any case, optional trailing slash); empty for an unknown path. Where a
   * fixed path and a parameter both match (`/customers/search`, `/customers/{externalKey}`), only the
   * most literal templates count: a fixed path is never taken for an id (docs/api.md "Protocol").
   */
  allowedMethods(path: string): string[] {
    let fewestParameters = Infinity;
    let methods = new Set<string>();
    for (const { pattern, parameters, method } of this.templates().get(firstSegment(path)) ?? []) {
      if (parameters > fewestParameters || !pattern.test(path)) continue;
      if (parameters < fewestParameters) {
        fewestParameters = parameters;
        methods = new Set();
      }
      methods.add(method);
      if (method === 'GET') methods.add('HEAD');
    }
    return [...methods].sort();
  }

  /**
   * `allowedMethods(path).length === 0 || allowedMethods(path).includes(method)`, without the set and the sorted list
   * each request would make: only a request the gate stops needs them (docs/performance.md, "Reads, fourth pass").
   */
  private passesMethodGate(path: string, method: string): boolean {
    let fewestParameters = Infinity;
    let answered = false;
    for (const template of this.templates().get(firstSegment(path)) ?? []) {
      if (template.parameters > fewestParameters || !template.pattern.test(path)) continue;
      if (template.parameters < fewestParameters) {
        fewestParameters = template.parameters;
        answered = false;
      }
      if (template.method === method || (method === 'HEAD' && template.method === 'GET')) answered = true;
    }
    return fewestParameters === Infinity || answered;
  }

  private compiledTemplates?: {
    count: number;
    bySegment: Map<string, { pattern: RegExp; parameters: number; method: string }[]>;
  };

  /**
   * Each documented operation's path as a regular expression, by the path's first segment, compiled once
   * (again only when a route is added): a request tests its own resource's templates only.
   */
  private templates() {
    const definitions = this.registry.definitions;
    if (this.compiledTemplates?.count !== definitions.length) {
      const list = definitions.flatMap((definition) => {
        if (definition.type !== 'route') return [];
        const template = definition.route.path;
        const source = template
          .split(/\{\w+\}/)
          .map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
          .join('[^/]+');
        return [
          {
            segment: firstSegment(template),
            pattern: new RegExp(`^${source}/?$`, 'i'),
            parameters: (template.match(/\{\w+\}/g) ?? []).length,
            method: definition.route.method.toUpperCase(),
          },
        ];
      });
      const bySegment = new Map<string, { pattern: RegExp; parameters: number; method: string }[]>();
      for (const { segment, ...template } of list)
        bySegment.set(segment, [...(bySegment.get(segment) ?? []), template]);
      this.compiledTemplates = { count: definitions.length, bySegment };
    }
    return this.compiledTemplates.bySegment;
  }

  /**
   * Runs before every route (true: go on to the routes): a documented path asked with a method it does not answer is 405 with
   * `Allow` here, before Express could hand it to a route with a parameter in its place
   * (`PATCH /customers/search` is not `PATCH /customers/{externalKey}`); OPTIONS answers 204 with
   * the same `Allow`.
   */
  private methodGate(req: Request, res: Response, next: (error?: unknown) => void): boolean {
    const path = req.path;
    if (this.passesMethodGate(path, req.method)) return true;
    const allowed = this.allowedMethods(path);
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', allowed.join(', '));
      res.status(204).end();
      return false;
    }
    next(new MethodNotAllowedError(req.method, req.path, allowed));
    return false;
  }

  openApiDocument(): object {
    const document = new OpenApiGeneratorV31(this.registry.definitions).generateDocument({
      openapi: '3.1.0',
      info: {
        title: 'Subscription billing API',
        version: '1.0',
        description:
          'Every endpoint but GET /health needs the cc-api-key header (or a dashboard session cookie). Unknown body and query fields are rejected with 400. ' +
          'Every error answer has the `Error` body. A documented path asked with a method it does not answer gets 405 with `Allow` ' +
          '(components.responses.MethodNotAllowed); an unknown path gets 404.',
      },
      servers: [{ url: '/' }],
    });
    return addExamples(boundIntegers(document) as Parameters<typeof addExamples>[0]);
  }
}
