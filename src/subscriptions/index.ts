// The subscriptions module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { subscriptionSchema } from './subscription.schemas';
export type { DunningSettingsObject, SubscriptionObject, UpdateSubscriptionInput } from './subscription.schemas';
export { BILLING_INTERVALS, addIntervals, addMonths } from './billing-dates';
export { getDunningSettings } from './dunning-settings.service';
export { sameHistory } from './known-states';
export { prorationLines, prorationPeriod } from './proration';
export type { ProrationLine } from './proration';
export { countCustomerSubscriptions, readSubscriptionIntervals } from './subscription-list.records';
export {
  API_SUBSCRIPTION_STATUSES,
  SubscriptionRuleError,
  keepChangedUsage,
  nextPeriodBilling,
  periodToBill,
  update,
} from './subscription-machine';
export type { Action, CollectionMethod, SubscriptionState } from './subscription-machine';
export { RENEWAL_REJECTED, rejectionFailure } from './subscription-rejection';
export type { RejectionKind } from './subscription-rejection';
export type { SubscriptionWithItems } from './subscription.records';
export {
  chargeRenewalInvoice,
  createRenewalInvoice,
  finalizeRenewalInvoice,
  immediateInvoice,
  invoiceProrationsNow,
  invoiceThresholdUsage,
  periodInvoice,
  priceUnitAmounts,
  settleCreatedInvoice,
} from './period-billing';
export type {
  FinalizedRenewal,
  ImmediateInvoiceInput,
  ImmediateInvoiceResult,
  RenewalChargeInput,
  RenewalChargeResult,
  RenewalInvoice,
  RenewalInvoiceInput,
  RenewalPeriod,
  ThresholdInvoiceInput,
  ThresholdInvoiceResult,
} from './period-billing';
export {
  assertItemsWithinCeiling,
  assertPeriodInvoiceWithinCeiling,
  assertPeriodWithinCeiling,
  prorationsPastCeiling,
} from './period-ceiling';
export type { ItemWithParam } from './period-ceiling';
export { accountProrationBehavior } from './proration-settings.service';
export { persistSubscription } from './subscription-projection.service';
export type { PersistSubscriptionInput, SubscriptionEventType } from './subscription-projection.service';
export {
  lastKnownSubscriptionState,
  noticeInvoicesSettled,
  noticeUsageReported,
  readSubscriptionState,
  updateSubscriptionWorkflow,
} from './subscription-workflow.client';
export {
  cancelSubscription,
  createSubscription,
  getSubscription,
  itemChanges,
  listSubscriptions,
  liveSubscription,
  pauseSubscription,
  resumeSubscription,
  subscriptionDepsOf,
  updateSubscription,
} from './subscription.service';
export type { SubscriptionDeps } from './subscription.service';
export { capUnusedTimeCredits } from './unused-time-cap';
export type { UnusedTimeCapInput } from './unused-time-cap';
export { registerSubscriptionRoutes } from './subscription.routes';
