// The support module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { customerActivity, findCustomerById, findCustomersByEmail } from './customer-lookup.records';
export type { CustomerActivity } from './customer-lookup.records';
export { askWorkflows, buildCustomerReport, formatCustomerReport, unansweredWorkflows } from './customer-lookup';
export type { WorkflowAnswers } from './customer-lookup';
export { registerCustomerReportRoutes } from './customer-report.routes';
