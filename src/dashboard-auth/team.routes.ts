import express, { type Request, type Response } from 'express';
import { publicUrl } from '../lib/page-tokens';
import type { AppDeps } from '../http/app-deps';
import type { CompletedWrite, Method } from '../http/api';
import { requireRole, type Role } from '../http/auth';
import { ApiError } from '../http/errors';
import { resourceId } from '../http/validation';
import type { LoginLimiter } from './login-limiter';
import { createMailer, type Mailer } from '../emails';
import { logger as defaultLogger } from '../http/logger';
import type { LiveSession, SessionSettings } from './session.service';
import { assertCsrf, assertSameOrigin, clearSessionCookie, sessionExpired, sessionOf } from './session-auth';
import { body, invalidCredentials, jsonBody, startSession } from './session.routes';
import { acceptBody, accountSettingsBody, invitationBody, roleBody, TOKEN_PATTERN } from './team.schemas';
import {
  acceptInvitation,
  changeMember,
  createInvitation,
  emailInvitation,
  getAccountSettings,
  listInvitations,
  listMembers,
  previewInvitation,
  revokeInvitation,
  updateAccountSettings,
} from './team.service';

/** Where the team endpoints live: beside the session endpoints, outside the merchant API (docs/decisions.md §21). */
export const TEAM_BASE = '/dashboard/api';

/**
 * A request's path as logs may keep it: an invitation's token (the page's and the API's) is a credential
 * until used, so it is replaced, as the API never logs a key (docs/architecture.md).
 */
export function loggablePath(path: string): string {
  return path.replace(
    /^\/dashboard\/(invitations|api\/join|reset-password|api\/password-resets)\/[^/]+/,
    '/dashboard/$1/{token}',
  );
}

const SUPERADMIN: readonly Role[] = ['superadmin'];
const ADMINS: readonly Role[] = ['developer', 'superadmin'];

function idParam(req: Request): string {
  // A malformed id is an unknown one (docs/decisions.md §17).
  const parsed = resourceId.safeParse(req.params.id);
  if (!parsed.success)
    throw new ApiError('not_found', 'resource_missing', `No such ${req.path.split('/')[1]}: '${req.params.id}'`, 'id');
  return parsed.data;
}

function tokenParam(req: Request): string {
  const token = String(req.params.token);
  if (!TOKEN_PATTERN.test(token))
    throw new ApiError(
      'not_found',
      'invitation_unknown',
      'This invitation link is not valid: ask for a new invitation.',
      'token',
    );
  return token;
}

/**
 * The dashboard's account settings, team and invitations (docs/api.md "Dashboard team"): session
 * only, every write with the CSRF token, the role read from the membership at each request.
 */
export function teamRouter(
  deps: AppDeps,
  settings: SessionSettings,
  limiter: LoginLimiter,
  onWrite: (write: CompletedWrite) => void = () => {},
  mailer: Mailer = createMailer(undefined),
): express.Router {
  const { prisma } = deps;
  const log = deps.logger ?? defaultLogger;
  /** A team change answered with success goes to the audit log, as the API's writes do (docs/api.md "Audit log"). */
  const answered = (req: Request, res: Response, session: LiveSession, status: number, answer: unknown) => {
    if (answer === undefined) res.status(status).end();
    else res.status(status).json(answer);
    onWrite({
      principal: { accountId: session.accountId, role: session.role!, userId: session.user.id },
      method: req.method.toLowerCase() as Method,
      route: String(res.locals.route),
      path: `${TEAM_BASE}${req.path}`,
      status,
      params: req.params.id ? { id: req.params.id } : {},
      body: answer,
      requestId: String(res.locals.requestId ?? ''),
    });
  };
  const router = express.Router();
  router.use((req, res, next) => {
    // Metrics and logs name the route, never an id or an invitation's token.
    res.locals.route = `${TEAM_BASE}${req.path.replace(/^\/(members|invitations)\/[^/]+$/, '/$1/{id}').replace(/^\/join\/[^/]+$/, '/join/{token}')}`;
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  /** The session with a role on its account, after the CSRF check on writes; `roles` limits who may act. */
  const member = async (req: Request, res: Response, roles?: readonly Role[]) => {
    const session = await sessionOf(prisma, req, settings);
    if (!session || !session.role) {
      clearSessionCookie(res);
      throw sessionExpired();
    }
    res.locals.accountId = session.accountId;
    assertCsrf(req, session);
    const principal = { accountId: session.accountId, role: session.role, userId: session.user.id };
    if (roles) requireRole(principal, roles);
    return session as LiveSession & { role: Role };
  };

  router.get('/account', async (req, res) => {
    const session = await member(req, res);
    res.json(await getAccountSettings(prisma, session.accountId));
  });

  router.patch('/account', ...jsonBody, async (req, res) => {
    const session = await member(req, res, SUPERADMIN);
    answered(
      req,
      res,
      session,
      200,
      await updateAccountSettings(prisma, session.accountId, body(accountSettingsBody, req)),
    );
  });

  router.get('/members', async (req, res) => {
    const session = await member(req, res, ADMINS);
    res.json({ object: 'list', data: await listMembers(prisma, session.accountId) });
  });

  router.patch('/members/:id', ...jsonBody, async (req, res) => {
    const session = await member(req, res, SUPERADMIN);
    const id = idParam(req);
    const input = body(roleBody, req);
    answered(req, res, session, 200, await changeMember(prisma, session.accountId, session.user.id, id, input.role));
  });

  router.delete('/members/:id', async (req, res) => {
    const session = await member(req, res, SUPERADMIN);
    await changeMember(prisma, session.accountId, session.user.id, idParam(req), null);
    answered(req, res, session, 204, undefined);
  });

  router.get('/invitations', async (req, res) => {
    const session = await member(req, res, SUPERADMIN);
    res.json({ object: 'list', data: await listInvitations(prisma, session.accountId) });
  });

  router.post('/invitations', ...jsonBody, async (req, res) => {
    const session = await member(req, res, SUPERADMIN);
    const input = body(invitationBody, req);
    // Under PUBLIC_URL, as every emailed link: a Host header is the client's to choose.
    const linkBase = publicUrl('');
    const invitation = await createInvitation(prisma, session.accountId, session.user.id, input, linkBase);
    // Emailed by this request, the one place the link exists in clear (docs/decisions.md §32).
    const emailed = await emailInvitation(prisma, mailer, log, session, invitation);
    answered(req, res, session, 201, { ...invitation, ...emailed });
  });

  router.delete('/invitations/:id', async (req, res) => {
    const session = await member(req, res, SUPERADMIN);
    await revokeInvitation(prisma, session.accountId, idParam(req));
    answered(req, res, session, 204, undefined);
  });

  // The invited person has no session yet: the token is their credential (docs/api.md "Dashboard team").
  router.get('/join/:token', async (req, res) => {
    res.json(await previewInvitation(prisma, tokenParam(req)));
  });

  router.post('/join/:token', ...jsonBody, async (req, res) => {
    // As the sign-in: a page on another site must not sign the browser in (login CSRF).
    assertSameOrigin(req);
    const token = tokenParam(req);
    const input = body(acceptBody, req);
    const preview = await previewInvitation(prisma, token);
    const address = req.ip ?? 'unknown';
    // An existing user's password is checked here: the same limits as the sign-in's.
    if (preview.existing_user) await limiter.assertAllowed(preview.email, address);
    const accepted = await acceptInvitation(prisma, token, input);
    if (accepted.outcome === 'wrong_password') {
      await limiter.recordFailure(accepted.email, address);
      throw invalidCredentials();
    }
    if (preview.existing_user) await limiter.recordSuccess(preview.email);
    res.status(201).json(await startSession(deps, settings, res, accepted.userId, accepted.accountId));
  });

  router.use((req) => {
    throw new ApiError('not_found', 'route_not_found', `No route for ${req.method} ${req.baseUrl}${req.path}`);
  });
  return router;
}
