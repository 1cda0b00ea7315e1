// The test-clocks module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { readTestClockRow } from './test-clock.records';
export {
  clockBindingOfColumns,
  clockForNewCustomer,
  customerClock,
  finishTestClockAdvance,
  liveClockWorkflows,
  onCustomerTime,
} from './test-clock.service';
export { registerTestClockRoutes } from './test-clock.routes';
