import type { Role, Session } from './types';

/**
 * The dashboard's own endpoints under /dashboard/api that /openapi.json does not describe (sessions, password
 * resets, accepting an invitation: docs/api.md "Dashboard sessions", docs/decisions.md §21), written in the shape openapi-typescript generates so that the one typed client
 * checks their paths, bodies and answers as it checks the API's. An endpoint that joins the document is
 * taken out of here: the generated type then checks it.
 */
type Json<T> = { content: { 'application/json': T } };
type Parameters<Path> = Path extends undefined
  ? { query?: never; header?: never; path?: never; cookie?: never }
  : { query?: never; header?: never; path: Path; cookie?: never };
type Answered<Answer> = Answer extends undefined
  ? { 204: { headers: { [name: string]: unknown }; content?: never } }
  : { 200: { headers: { [name: string]: unknown } } & Json<Answer> };
/** One operation: what it answers, the JSON body it takes, its path parameters. */
type Operation<Answer, Body = undefined, Path = undefined> = {
  parameters: Parameters<Path>;
  responses: Answered<Answer>;
} & (Body extends undefined ? { requestBody?: never } : { requestBody: Json<Body> });
type Route<Methods> = { parameters: Parameters<undefined> } & Methods;

type Token = { token: string };

/** The kinds of email an account may switch off (src/emails/email-content.ts and src/dashboard-auth/user-emails.ts). */
export type EmailKind =
  | 'invoice'
  | 'receipt'
  | 'payment_failed'
  | 'payment_action_required'
  | 'installment_failed'
  | 'renewal_reminder'
  | 'trial_ending'
  | 'team_invitation';

export interface InvitationPreview {
  email: string;
  role: Role;
  account_name: string;
  existing_user: boolean;
  expires_at: number;
  time_zone: string;
}

export interface PasswordResetPreview {
  email: string;
  expires_at: number;
}

export interface DashboardPaths {
  '/dashboard/api/session': Route<{
    get: Operation<Session>;
    post: Operation<Session, { email: string; password: string; account?: string }>;
    delete: Operation<undefined>;
  }>;
  '/dashboard/api/session/account': Route<{ post: Operation<Session, { account: string }> }>;
  '/dashboard/api/session/password': Route<{
    post: Operation<undefined, { current_password: string; new_password: string }>;
  }>;
  '/dashboard/api/password-resets': Route<{ post: Operation<{ email: string }, { email: string }> }>;
  '/dashboard/api/password-resets/{token}': Route<{
    get: Operation<PasswordResetPreview, undefined, Token>;
    post: Operation<undefined, { password: string }, Token>;
  }>;
  '/dashboard/api/join/{token}': Route<{
    get: Operation<InvitationPreview, undefined, Token>;
    post: Operation<Session, { name?: string; password: string }, Token>;
  }>;
}
