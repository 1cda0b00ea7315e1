// The invoices module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { invoiceDisputeSchema, invoiceIdParams, invoiceSchema } from './invoice.schemas';
export type { InvoiceObject } from './invoice.schemas';
export { HOSTED_INVOICE_PATH, findHostedInvoiceLink } from './hosted-link.records';
export { listInvoices } from './invoice-list.service';
export { lockInvoice } from './invoice-lock';
export { allocateNumber } from './invoice-number.records';
export {
  invoiceSettled,
  tellSettledAfterAnswer,
  tellingSettledInvoices,
  withoutSettlementNotice,
} from './invoice-settlement';
export type { SettledInvoice } from './invoice-settlement';
export {
  billedUsageBeforePeriod,
  countCustomerInvoices,
  findInvoiceIdByKey,
  findRefundByKey,
  readCustomerDraftIds,
  readInvoiceStatus,
  readProductName,
  toInvoiceObject,
  updateLockedInvoice,
  usageBilledFrom,
  withInvoiceNumbers,
} from './invoice.records';
export type { InvoiceWithLines } from './invoice.records';
export { assertNoDisputeHoldsFunds, recordInvoiceDispute } from './invoice-dispute.service';
export {
  authenticateInvoicePayment,
  collectInvoice,
  createChargedInvoiceForBilling,
  openFirstAttempt,
  payInvoice,
  paymentAwaitingAuthentication,
  paymentHeldByProcessor,
  recordInvoicePayment,
} from './invoice-payment.service';
export type { PayInvoiceOptions } from './invoice-payment.service';
export { openRefund, recordInvoiceRefund, refundInFlight, refundInvoice } from './invoice-refund.service';
export {
  InvoiceNotPayableError,
  createInvoice,
  createInvoiceForBilling,
  createKeyedInvoice,
  finalizeInTx,
  finalizeInvoice,
  findInvoice,
  findOrCreateInvoiceForBilling,
  getInvoice,
  getInvoiceByNumber,
  onInvoiceTime,
  previewInvoiceForBilling,
  recordCustomerUpdated,
  voidInTx,
  voidInvoice,
  withParam,
} from './invoice.service';
export type { BillingInvoiceInput, BillingLine } from './invoice.service';
export { discountedLineShares } from './line-shares';
export { invoiceCreditable, subscriptionPeriodHeld } from './period-held';
export { registerInvoiceRoutes } from './invoice.routes';
