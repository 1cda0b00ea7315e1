// The simulated-gateway module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { readClockPendingDebitIds } from './simulated-gateway.records';
export { BANK_RETURNS, FAILURES, bankAccountTestBehavior, cardTestBehavior } from './test-numbers';
export { settleBankDebit, simulatedGateway } from './simulated-gateway';
