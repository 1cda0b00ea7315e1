import crypto from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Payload } from '@temporalio/common';
import { derivedKeys } from '../lib/encryption';
import { BUILT_IN_SECRETS } from '../lib/secrets';
import { HOUR_MS } from '../lib/durations';
import { EncryptionCodec } from './payload-codec';

/**
 * The codec endpoint of the Temporal Web UI (docs/operations.md, "Reading payloads: the codec
 * endpoint"), served by the API under `/codec`: Temporal's remote codec protocol, `POST /codec/decode`
 * and `POST /codec/encode` taking and answering `{"payloads": [{"metadata": {...}, "data": "..."}]}`
 * (proto3 JSON: bytes in base64), with CORS for the Web UI's origins.
 *
 * Operators only: a request needs the operator token (TEMPORAL_CODEC_TOKEN), as
 * `Authorization: Bearer <token>` (the Temporal CLI's `--codec-auth`) or as the session cookie that
 * `/codec/session` sets once the token is entered there, which the Web UI sends with
 * `codec.includeCredentials: true`. With the built-in development key (`npm start`, the tests) the
 * endpoint is open unless a token is set: that key is in the source code, it protects nothing.
 */
export const CODEC_PATH = '/codec';
const SESSION_COOKIE = 'billing_codec_session';
const SESSION_MS = 12 * HOUR_MS;
const SESSION_PURPOSE = 'temporal-codec-session/v1';

export interface CodecServerOptions {
  env?: NodeJS.ProcessEnv;
  /** Origins allowed to call it from a browser: TEMPORAL_CODEC_ORIGINS, else the local Web UI's. */
  origins?: string[];
}

/** TEMPORAL_CODEC_ORIGINS (comma-separated), else the Web UI `npm start` runs (TEMPORAL_UI_PORT). */
export function codecOrigins(env: NodeJS.ProcessEnv = process.env): string[] {
  const listed = (env.TEMPORAL_CODEC_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/$/, ''))
    .filter(Boolean);
  if (listed.length > 0) return listed;
  const port = env.TEMPORAL_UI_PORT || '8233';
  return [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
}

const bytes = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'base64');
const payloadsBody = z.object({
  payloads: z
    .array(z.object({ metadata: z.record(z.string(), bytes).nullish(), data: bytes.nullish() }).passthrough())
    .max(10_000),
});

function toPayload(json: z.infer<typeof payloadsBody>['payloads'][number]): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(json.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
    ),
    data: Buffer.from(json.data ?? '', 'base64'),
  };
}

function toJson(payload: Payload) {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? []).toString('base64')]),
    ),
    data: Buffer.from(payload.data ?? []).toString('base64'),
  };
}

function digest(text: string): Buffer {
  return crypto.createHash('sha256').update(text).digest();
}

function sameSecret(given: string, expected: string): boolean {
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

function sessionMac(keyId: string, key: Buffer, expires: number): string {
  return crypto.createHmac('sha256', key).update(`${keyId}.${expires}`).digest('base64url');
}

/** `<key id>.<expiry ms>.<HMAC>`: stateless, so any API process accepts the cookie another one set. */
export function newSessionValue(env: NodeJS.ProcessEnv = process.env, now = Date.now()): string {
  const { current } = derivedKeys(SESSION_PURPOSE, env);
  const expires = now + SESSION_MS;
  return `${current.id}.${expires}.${sessionMac(current.id, current.key, expires)}`;
}

function validSession(value: string, env: NodeJS.ProcessEnv, now = Date.now()): boolean {
  const [keyId, expiresText, mac] = value.split('.');
  const expires = Number(expiresText);
  const key = keyId ? derivedKeys(SESSION_PURPOSE, env).byId(keyId) : undefined;
  if (!key || !mac || !Number.isSafeInteger(expires) || expires <= now) return false;
  return sameSecret(mac, sessionMac(key.id, key.key, expires));
}

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.header('cookie') ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

type Access = 'open' | 'token' | 'refused';

/** `open` with the built-in development key and no token; `token` when TEMPORAL_CODEC_TOKEN is set; else refused. */
function accessMode(env: NodeJS.ProcessEnv): Access {
  if (env.TEMPORAL_CODEC_TOKEN) return 'token';
  const key = env.SECRETS_ENCRYPTION_KEY;
  return (!key || key === BUILT_IN_SECRETS.SECRETS_ENCRYPTION_KEY) && env.NODE_ENV !== 'production'
    ? 'open'
    : 'refused';
}

function codecError(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({
    error: {
      type: status === 401 || status === 403 ? 'authentication_error' : 'invalid_request_error',
      code,
      message,
    },
  });
}

const SESSION_PAGE = (message = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Temporal codec: operator session</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>Temporal Web UI codec</h1>
<p>Enter the operator token (TEMPORAL_CODEC_TOKEN) to let the Temporal Web UI in this browser decode payloads for 12 hours.</p>
${message ? `<p><strong>${message}</strong></p>` : ''}
<form method="post"><input type="password" name="token" autocomplete="off" size="50" autofocus> <button type="submit">Start session</button></form>
</body></html>`;

export function codecRouter(options: CodecServerOptions = {}): express.Router {
  const env = options.env ?? process.env;
  const origins = new Set(options.origins ?? codecOrigins(env));
  const codec = new EncryptionCodec(env);
  const router = express.Router();

  router.use((req, res, next) => {
    res.locals.route = req.path === '/session' ? `${CODEC_PATH}/session` : `${CODEC_PATH}/{operation}`;
    res.setHeader('Cache-Control', 'no-store');
    const origin = req.header('origin');
    if (origin && origins.has(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    res.vary('Origin');
    if (req.method === 'OPTIONS') {
      // The preflight carries no credentials: it is answered without them, and only for the listed origins.
      if (!origin || !origins.has(origin)) return void res.status(403).end();
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization, Authorization-Extras');
      res.setHeader('Access-Control-Max-Age', '600');
      return void res.status(204).end();
    }
    next();
  });

  router.get('/session', (_req, res) => {
    res
      .type('html')
      .send(
        SESSION_PAGE(
          accessMode(env) === 'refused' ? 'The codec endpoint is off: TEMPORAL_CODEC_TOKEN is not set.' : '',
        ),
      );
  });
  router.post('/session', express.urlencoded({ extended: false, limit: '4kb' }), (req, res) => {
    const token = typeof req.body?.token === 'string' ? (req.body.token as string) : '';
    const expected = env.TEMPORAL_CODEC_TOKEN;
    if (!expected || !sameSecret(token, expected))
      return void res.status(401).type('html').send(SESSION_PAGE('Wrong token.'));
    const secure = req.secure || req.header('x-forwarded-proto') === 'https' ? '; Secure' : '';
    res.setHeader(
      'Set-Cookie',
      `${SESSION_COOKIE}=${newSessionValue(env)}; Path=${CODEC_PATH}; Max-Age=${SESSION_MS / 1000}; HttpOnly; SameSite=Strict${secure}`,
    );
    res
      .type('html')
      .send(
        '<!doctype html><p>Session started: the Temporal Web UI in this browser decodes payloads for 12 hours.</p>',
      );
  });

  const authorize = (req: Request, res: Response, next: NextFunction) => {
    const mode = accessMode(env);
    if (mode === 'open') return next();
    if (mode === 'refused')
      return codecError(
        res,
        403,
        'codec_disabled',
        'The codec endpoint is off: set TEMPORAL_CODEC_TOKEN (docs/operations.md).',
      );
    const bearer = /^Bearer (.+)$/i.exec(req.header('authorization') ?? '')?.[1];
    if (bearer !== undefined && sameSecret(bearer.trim(), env.TEMPORAL_CODEC_TOKEN!)) return next();
    const session = cookie(req, SESSION_COOKIE);
    if (session && validSession(session, env)) return next();
    codecError(
      res,
      401,
      'codec_unauthorized',
      `Operators only: send Authorization: Bearer <TEMPORAL_CODEC_TOKEN>, or start a session at ${CODEC_PATH}/session.`,
    );
  };

  for (const operation of ['encode', 'decode'] as const) {
    router.post(`/${operation}`, authorize, express.json({ limit: '8mb' }), async (req, res) => {
      const parsed = payloadsBody.safeParse(req.body);
      if (!parsed.success)
        return codecError(
          res,
          400,
          'payloads_invalid',
          'The body must be {"payloads": [{"metadata": {...}, "data": "<base64>"}]}.',
        );
      const payloads = parsed.data.payloads.map(toPayload);
      try {
        const done = operation === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
        res.json({ payloads: done.map(toJson) });
      } catch (error) {
        codecError(res, 422, 'payload_undecodable', (error as Error).message);
      }
    });
  }
  router.use((_req, res) =>
    codecError(
      res,
      404,
      'route_not_found',
      `The codec endpoint answers POST ${CODEC_PATH}/encode and ${CODEC_PATH}/decode.`,
    ),
  );
  // A body that is not JSON, or too large.
  router.use((error: { status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => {
    codecError(
      res,
      error.status && error.status < 500 ? error.status : 400,
      'payloads_invalid',
      error.message ?? 'Bad request',
    );
  });
  return router;
}
