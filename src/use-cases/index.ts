// The use-cases module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { upcomingInvoiceQuery, upcomingInvoiceSchema } from './upcoming-invoice.schemas';
export { settleSimulatedBankDebit } from './bank-debit-settlement';
export { completeCheckout } from './checkout-completion';
export { deleteCustomer } from './customer-deletion';
export {
  addCard,
  cancelAtPeriodEnd,
  cardToRemove,
  keepSubscription,
  makeDefaultCard,
  pauseOwnSubscription,
  portalAccount,
  readPortal,
  removeCard,
  resumeOwnSubscription,
  subscriptionToCancel,
} from './customer-portal';
export type { PortalCustomer, PortalSubscription } from './customer-portal';
export { hearGatewayChanges } from './gateway-changes';
export { HostedCardRefusedError } from './hosted-card';
export type { HostedCard } from './hosted-card';
export {
  authenticateOnHostedInvoicePage,
  hostedAuthentication,
  payFromHostedInvoicePage,
} from './hosted-invoice-payment';
export { sendInvoiceEmail } from './invoice-sending';
export { reconcilePayments, recordProcessorReport } from './payment-reconciliation';
export { changeSubscription } from './subscription-change';
export { queueSubscriptionReminder, reminderDays } from './subscription-reminders';
export { upcomingInvoice } from './upcoming-invoice';
export { reportUsage } from './usage-reporting';
