import express, { type Request, type Response } from 'express';
import { publicUrl } from '../lib/page-tokens';
import type { AppDeps } from '../http/app-deps';
import { ApiError } from '../http/errors';
import { logger as defaultLogger } from '../http/logger';
import type { Mailer } from '../emails';
import type { LoginLimiter } from './login-limiter';
import { createPasswordReset, previewPasswordReset, recordResetEmail, resetPassword } from './password-reset.service';
import { assertSameOrigin } from './session-auth';
import { body, jsonBody } from './session.routes';
import { passwordResetBody, passwordResetRequestBody } from './session.schemas';
import { TOKEN_PATTERN } from './team.schemas';
import { passwordResetEmail, sendUserEmail } from './user-emails';

/** Where a forgotten password is reset (docs/api.md "Dashboard sessions"), beside the sign-in. */
export const PASSWORD_RESET_PATH = '/dashboard/api/password-resets';

function tokenParam(req: Request): string {
  const token = String(req.params.token);
  if (!TOKEN_PATTERN.test(token))
    throw new ApiError('not_found', 'reset_unknown', 'This reset link is not valid: ask for a new one.', 'token');
  return token;
}

/**
 * "Forgot password" (docs/decisions.md §32): POST asks for a link by email and answers 202 whoever
 * asks (the same answer with a user or without, the email sent after it); GET `/:token` says whose
 * password the link resets; POST `/:token` sets the new one, once, and ends every session of the user.
 * Each request counts against `limiter` (its own, as the sign-in's limits: per email, per address).
 */
export function passwordResetRouter(deps: AppDeps, limiter: LoginLimiter, mailer: Mailer): express.Router {
  const { prisma } = deps;
  const log = deps.logger ?? defaultLogger;
  const router = express.Router();
  router.use((req, res, next) => {
    res.locals.route = `${PASSWORD_RESET_PATH}${req.path === '/' ? '' : '/{token}'}`;
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  const counted = async (req: Request, email: string) => {
    const address = req.ip ?? 'unknown';
    await limiter.assertAllowed(email, address);
    await limiter.recordFailure(email, address);
  };

  router.post('/', ...jsonBody, async (req, res: Response) => {
    assertSameOrigin(req);
    const { email } = body(passwordResetRequestBody, req);
    await counted(req, email.toLowerCase());
    const reset = await createPasswordReset(prisma, email);
    res.status(202).json({ object: 'password_reset_request', email });
    if (!reset) return;
    // After the answer: how long the SMTP server takes tells nobody whether the email has a user.
    // Under PUBLIC_URL, never the request's Host: anyone may ask for a reset, and a Host of their choosing
    // would send the victim a link to their site carrying the token.
    const url = publicUrl(`/dashboard/reset-password/${reset.token}`);
    void sendUserEmail(mailer, log, {
      to: reset.user.email,
      kind: 'password_reset',
      content: passwordResetEmail({ name: reset.user.name, url, expiresAt: reset.expiresAt }),
    })
      .then((outcome) => recordResetEmail(prisma, reset.id, outcome))
      .catch((error: unknown) => log.error({ err: error }, 'password reset email not recorded'));
  });

  router.get('/:token', async (req, res) => {
    res.json(await previewPasswordReset(prisma, tokenParam(req)));
  });

  router.post('/:token', ...jsonBody, async (req, res) => {
    assertSameOrigin(req);
    const token = tokenParam(req);
    const input = body(passwordResetBody, req);
    await counted(req, `reset:${token.slice(0, 8)}`);
    await resetPassword(prisma, token, input.password);
    res.status(204).end();
  });
  return router;
}
