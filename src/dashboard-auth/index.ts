// The dashboard-auth module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { newPassword } from './session.schemas';
export { createLoginLimiter } from './login-limiter';
export { SESSION_COOKIE, createSessionAuthenticator, readCookie } from './session-auth';
export { sessionSettingsFromConfig } from './session.service';
export type { SessionSettings } from './session.service';
export { createUser, setUserDisabled } from './user.service';
export { PASSWORD_RESET_PATH, passwordResetRouter } from './password-reset.routes';
export { SESSION_PATH, sessionRouter } from './session.routes';
export { JOIN_PATH, joinRouter, loggablePath, registerTeamRoutes } from './team.routes';
