import express, { type Request } from 'express';
import { z } from 'zod';
import { publicUrl } from '../lib/page-tokens';
import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import type { Role } from '../http/auth';
import { ApiError } from '../http/errors';
import type { Mailer } from '../emails';
import { logger as defaultLogger } from '../http/logger';
import type { LoginLimiter } from './login-limiter';
import type { SessionSettings } from './session.service';
import { assertSameOrigin } from './session-auth';
import { body, invalidCredentials, jsonBody, startSession } from './session.routes';
import {
  acceptBody,
  accountSettingsBody,
  accountSettingsSchema,
  invitationBody,
  invitationListSchema,
  invitationSchema,
  memberListSchema,
  memberSchema,
  roleBody,
  teamIdParams,
  TOKEN_PATTERN,
} from './team.schemas';
import {
  acceptInvitation,
  changeMember,
  getAccountSettings,
  inviteMember,
  listInvitations,
  listMembers,
  previewInvitation,
  revokeInvitation,
  updateAccountSettings,
} from './team.service';

/** Where the dashboard's own endpoints live, beside its sessions (docs/decisions.md §21). */
export const TEAM_BASE = '/dashboard/api';
/** Where an invited person, who has no session yet, opens and accepts an invitation. */
export const JOIN_PATH = `${TEAM_BASE}/join`;

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

/** What a 204 answers: no body (src/http/api.ts documents none). */
const noContent = z.undefined();

const SUPERADMIN: readonly Role[] = ['superadmin'];
const ADMINS: readonly Role[] = ['developer', 'superadmin'];

/**
 * The dashboard's account settings, team and invitations (docs/api.md "Dashboard team"), in the API's
 * route table: a session only (never a key), every write with the CSRF token, the role read from the
 * membership at each request; audited and rate limited as every route. Who may change whom stays in
 * src/dashboard-auth/team.service.ts.
 */
export function registerTeamRoutes(api: Api, deps: AppDeps, mailer: Mailer): void {
  const { prisma } = deps;
  const log = deps.logger ?? defaultLogger;
  const tag = 'Dashboard team';
  const sessionOnly = true;

  api.route({
    method: 'get',
    path: `${TEAM_BASE}/account`,
    tag,
    sessionOnly,
    summary: "The account's settings: name, time zone, emails, reminders, colour",
    response: accountSettingsSchema,
    handler: ({ principal }) => getAccountSettings(prisma, principal.accountId),
  });

  api.route({
    method: 'patch',
    path: `${TEAM_BASE}/account`,
    tag,
    sessionOnly,
    summary: "Change the account's settings (superadmin)",
    roles: SUPERADMIN,
    body: accountSettingsBody,
    response: accountSettingsSchema,
    handler: ({ principal, body }) => updateAccountSettings(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: `${TEAM_BASE}/members`,
    tag,
    sessionOnly,
    summary: "The account's members, oldest first (developer, superadmin)",
    roles: ADMINS,
    response: memberListSchema,
    handler: async ({ principal }) => ({ object: 'list', data: await listMembers(prisma, principal.accountId) }),
  });

  api.route({
    method: 'patch',
    path: `${TEAM_BASE}/members/{id}`,
    tag,
    sessionOnly,
    summary: "Change a member's role (superadmin; the account keeps a superadmin)",
    roles: SUPERADMIN,
    params: teamIdParams,
    body: roleBody,
    response: memberSchema,
    errors: [409],
    handler: ({ principal, params, body }) =>
      changeMember(prisma, principal.accountId, principal.userId!, params.id, body.role),
  });

  api.route({
    method: 'delete',
    path: `${TEAM_BASE}/members/{id}`,
    tag,
    sessionOnly,
    summary:
      'Remove a member from the account, ending their sessions on it (superadmin; the account keeps a superadmin)',
    roles: SUPERADMIN,
    params: teamIdParams,
    status: 204,
    response: noContent,
    errors: [409],
    handler: async ({ principal, params }) => {
      await changeMember(prisma, principal.accountId, principal.userId!, params.id, null);
    },
  });

  api.route({
    method: 'get',
    path: `${TEAM_BASE}/invitations`,
    tag,
    sessionOnly,
    summary: 'The pending invitations, newest first (superadmin)',
    roles: SUPERADMIN,
    response: invitationListSchema,
    handler: async ({ principal }) => ({ object: 'list', data: await listInvitations(prisma, principal.accountId) }),
  });

  api.route({
    method: 'post',
    path: `${TEAM_BASE}/invitations`,
    tag,
    sessionOnly,
    summary: 'Invite a person by email (superadmin): the answer carries the link, emailed unless switched off',
    roles: SUPERADMIN,
    body: invitationBody,
    status: 201,
    response: invitationSchema,
    handler: ({ principal, body }) =>
      // Under PUBLIC_URL, as every emailed link: a Host header is the client's to choose.
      inviteMember(
        prisma,
        mailer,
        log,
        { accountId: principal.accountId, userId: principal.userId! },
        body,
        publicUrl(''),
      ),
  });

  api.route({
    method: 'delete',
    path: `${TEAM_BASE}/invitations/{id}`,
    tag,
    sessionOnly,
    summary: 'Revoke a pending invitation (superadmin)',
    roles: SUPERADMIN,
    params: teamIdParams,
    status: 204,
    response: noContent,
    errors: [409],
    handler: async ({ principal, params }) => {
      await revokeInvitation(prisma, principal.accountId, params.id);
    },
  });
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
 * Opening and accepting an invitation (docs/api.md "Dashboard team"): the invited person has no
 * session yet, the token is their credential, and accepting signs the browser in with a cookie, so
 * these two stay beside the sign-in rather than in the API's route table (docs/decisions.md §21).
 */
export function joinRouter(deps: AppDeps, settings: SessionSettings, limiter: LoginLimiter): express.Router {
  const { prisma } = deps;
  const router = express.Router();
  router.use((req, res, next) => {
    // Metrics and logs name the route, never an invitation's token.
    res.locals.route = `${JOIN_PATH}/{token}`;
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  router.get('/:token', async (req, res) => {
    res.json(await previewInvitation(prisma, tokenParam(req)));
  });

  router.post('/:token', ...jsonBody, async (req, res) => {
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
  return router;
}
