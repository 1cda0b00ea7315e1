// The audit module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { registerAuditRoutes } from './audit.routes';
export { auditRecorder, flushAuditEntries } from './audit.service';
