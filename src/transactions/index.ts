// The transactions module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { transactionSchema } from './transaction.schemas';
export type { TransactionObject } from './transaction.schemas';
export { attemptReceipt, chargeReceipt, invoicePaymentReceipt } from './charge-receipt';
export type { ChargeReceipt } from './charge-receipt';
export { TRANSACTION_ORIGINS } from './transaction-origin';
export type { ChargeOrigin } from './transaction-origin';
export { readEntryById } from './transaction.records';
export {
  AUTHENTICATION_REQUIRED,
  applyBalanceToInvoice,
  awaitsAuthentication,
  countPendingEntries,
  creditBalanceFromInvoice,
  disputedPayment,
  entriesInFlight,
  entryByGatewayKey,
  findEntry,
  isInFlight,
  isSettled,
  openPending,
  paymentAttempts,
  recordAdjustment,
  recordBalanceEntry,
  recordDisputeMovement,
  recordNothingDue,
  recordSettled,
  runAttempt,
  settlePending,
} from './ledger';
export type { AttemptStep, LedgerEntry, LedgerOutcome } from './ledger';
export { ledgerRegistry } from './ledger-metrics';
export { listInvoiceTransactions, toTransactionObject } from './transaction.service';
export { registerTransactionRoutes } from './transaction.routes';
