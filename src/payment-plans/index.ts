// The payment-plans module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export {
  MAX_DEFAULT_AFTER_DAYS,
  MIN_DEFAULT_AFTER_DAYS,
  PLAN_STATUSES,
  installmentSchema,
  paymentPlanSchema,
  planPaymentSchema,
} from './payment-plan.schemas';
export {
  OPEN_TERMINAL_STATES,
  OWED_STATUSES,
  PLAN_INCLUDE,
  countCustomerPlans,
  listOpenTerminalPayments,
  readAttemptPayment,
  readPaymentOfPlan,
  readPlanIntervals,
  snapshotOf,
  toPaymentObject,
} from './payment-plan.records';
export type { PlanWithDetails } from './payment-plan.records';
export { notifyPlanUpdated, sendPlanRequest, tellingPlansOfChangedPayments } from './workflow-client';
export {
  applyPlanRequest,
  changePaymentPlanSettings,
  findPaymentPlanSettings,
  getPaymentPlan,
  getPaymentPlanSettings,
  markDefaulted,
  markInstallmentOverdue,
} from './payment-plan.service';
export { chargeInstallment, installmentAttemptKey, recordPlanCharge } from './plan-payments.service';
export type { AutomaticChargeOutcome } from './plan-payments.service';
export { recordPlanRefund } from './plan-refunds.service';
export {
  presentProcessorTestCard,
  recordProcessorSaleReport,
  reportTerminalOutcome,
} from './terminal-payments.service';
export type { TerminalReport } from './terminal-payments.service';
export { registerPaymentPlanRoutes } from './payment-plan.routes';
