// The billing-portal module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { readPortalSettings } from './portal.records';
export { PORTAL_PATH, findPortalSession } from './portal.service';
export { registerPortalRoutes } from './portal.routes';
