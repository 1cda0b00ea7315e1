import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../http/app-deps';
import { requireJsonBody } from '../http/api';
import { ApiError } from '../http/errors';
import { parseOrThrow } from '../http/validation';
import { config } from '../config';
import { checkCredentials, membershipsOf, normalizeEmail, passwordMatches, setPassword } from './user.service';
import {
  createSession,
  deleteEndedSessions,
  deleteSession,
  findSession,
  switchAccount,
  type LiveSession,
  type SessionSettings,
} from './session.service';
import {
  assertCsrf,
  assertSameOrigin,
  clearSessionCookie,
  sessionExpired,
  sessionOf,
  setSessionCookie,
} from './session-auth';
import { changePasswordBody, loginBody, switchAccountBody } from './session.schemas';
import type { LoginLimiter } from './login-limiter';

/** Where the session endpoints live: beside the SPA, outside the merchant API's document. */
export const SESSION_PATH = '/dashboard/api/session';

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

async function sessionAnswer(deps: AppDeps, session: LiveSession) {
  const accounts = await membershipsOf(deps.prisma, session.user.id);
  return {
    object: 'session',
    user: session.user,
    account: accounts.find((account) => account.id === session.accountId) ?? null,
    accounts,
    csrf_token: session.csrfToken,
    expires_at: seconds(session.expiresAt),
    idle_expires_at: seconds(session.idleExpiresAt),
    temporal_workflows_url: `${config.temporalUiUrl}/namespaces/${encodeURIComponent(config.temporalNamespace)}/workflows`,
  };
}

/** Signs the browser in (a new session and its cookie) on `accountId`: the sign-in's and an accepted invitation's answer. */
export async function startSession(
  deps: AppDeps,
  settings: SessionSettings,
  res: Response,
  userId: string,
  accountId: string,
) {
  const created = await createSession(deps.prisma, userId, accountId, settings);
  setSessionCookie(res, created.token, created.expiresAt);
  res.locals.accountId = accountId;
  return sessionAnswer(deps, (await findSession(deps.prisma, created.token, settings))!);
}

/** JSON bodies only, small ones: these endpoints take an email and passwords. */
export const jsonBody = [requireJsonBody, express.json({ limit: '16kb' })];

export function body<T extends z.ZodType>(schema: T, req: Request): z.output<T> {
  return parseOrThrow(schema, req.body ?? {}, 'body');
}

export const invalidCredentials = () =>
  new ApiError('authentication_error', 'invalid_credentials', 'The email or password is incorrect.');

/**
 * The dashboard's sign-in (docs/api.md "Dashboard sessions"): POST signs in, GET answers who is signed
 * in on which account with the CSRF token, DELETE signs out, `/account` switches account, `/password`
 * changes the password.
 */
export function sessionRouter(deps: AppDeps, settings: SessionSettings, limiter: LoginLimiter): express.Router {
  const { prisma } = deps;
  const router = express.Router();
  router.use((req, res, next) => {
    res.locals.route = `${SESSION_PATH}${req.path === '/' ? '' : req.path}`;
    // Answers carry the CSRF token and who is signed in: never stored by a cache.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  const requireSession = async (req: Request, res: Response): Promise<LiveSession> => {
    const session = await sessionOf(prisma, req, settings);
    if (!session) {
      clearSessionCookie(res);
      throw sessionExpired();
    }
    res.locals.accountId = session.accountId;
    return session;
  };

  router.post('/', ...jsonBody, async (req, res) => {
    // A page on another site must not sign the browser in to an account of the attacker's (login CSRF).
    assertSameOrigin(req);
    const input = body(loginBody, req);
    const email = normalizeEmail(input.email);
    const address = req.ip ?? 'unknown';
    await limiter.assertAllowed(email, address);
    const user = await checkCredentials(prisma, email, input.password);
    const accounts = user ? await membershipsOf(prisma, user.id) : [];
    if (!user || accounts.length === 0) {
      await limiter.recordFailure(email, address);
      throw invalidCredentials();
    }
    await limiter.recordSuccess(email);
    const account = input.account ? accounts.find((member) => member.id === input.account) : accounts[0];
    if (!account) throw new ApiError('not_found', 'resource_missing', `No such account: '${input.account}'`, 'account');
    await deleteEndedSessions(prisma);
    res.status(201).json(await startSession(deps, settings, res, user.id, account.id));
  });

  router.get('/', async (req, res) => {
    res.json(await sessionAnswer(deps, await requireSession(req, res)));
  });

  router.delete('/', async (req, res) => {
    const session = await sessionOf(prisma, req, settings);
    if (session) {
      assertCsrf(req, session);
      await deleteSession(prisma, session.id);
    }
    clearSessionCookie(res);
    res.status(204).end();
  });

  router.post('/account', ...jsonBody, async (req, res) => {
    const session = await requireSession(req, res);
    assertCsrf(req, session);
    const input = body(switchAccountBody, req);
    if (!(await switchAccount(prisma, session, input.account)))
      throw new ApiError('not_found', 'resource_missing', `No such account: '${input.account}'`, 'account');
    res.json(await sessionAnswer(deps, { ...session, accountId: input.account }));
  });

  router.post('/password', ...jsonBody, async (req, res) => {
    const session = await requireSession(req, res);
    assertCsrf(req, session);
    const input = body(changePasswordBody, req);
    const address = req.ip ?? 'unknown';
    // A stolen session must not be a way around the sign-in limit to guess the password.
    await limiter.assertAllowed(session.user.email, address);
    if (!(await passwordMatches(prisma, session.user.id, input.current_password))) {
      await limiter.recordFailure(session.user.email, address);
      throw new ApiError(
        'invalid_request_error',
        'password_incorrect',
        'The current password is incorrect.',
        'current_password',
      );
    }
    await setPassword(prisma, session.user.id, input.new_password, session.id);
    res.status(204).end();
  });

  router.use((req) => {
    throw new ApiError('not_found', 'route_not_found', `No route for ${req.method} ${req.baseUrl}${req.path}`);
  });
  return router;
}
