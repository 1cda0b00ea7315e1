// The temporal module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { connectTemporal, connectTemporalClient, temporalClient } from './client';
export { CODEC_PATH, codecRouter } from './codec-server';
export { customerEmailFilter, customerEmailHashes, normalizeEmail } from './email-hash';
export { RECONCILIATION_SCHEDULE_ID, ensureReconciliationSchedule } from './reconciliation-schedule';
export { RETENTION_SCHEDULE_ID, ensureRetentionSchedule } from './retention-schedule';
export { installWorkerRuntime } from './runtime';
export { BILLING_ACCOUNT_ID, BILLING_CUSTOMER_ID, BILLING_STATUS, SEARCH_ATTRIBUTE_FLAGS } from './search-attributes';
export {
  deliveryDisplay,
  displayStartOptions,
  emailDisplay,
  paymentPlanDisplay,
  subscriptionDisplay,
  testClockDisplay,
} from './workflow-display';
export type { WorkflowDisplay } from './workflow-display';
export { insertWorkflowStartsSql } from './workflow-start.records';
export {
  isStartPending,
  recordWorkflowStart,
  startColumns,
  startRecordedWorkflow,
  startWorkflowStartSweeper,
} from './workflow-starts';
export type { WorkflowStart } from './workflow-starts';
export { writeWorkflowBundle } from './bundle';
export { createWorker, workerPoolSize } from './worker';
export { freeLoopbackPort, serveWorkerMetrics } from './worker-metrics';
export type { WorkerMetricsServer } from './worker-metrics';
