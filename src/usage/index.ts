// The usage module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { meterSchema } from './meter.schemas';
export type { CreateUsageEventsInput, UsageEventsAccepted } from './usage-event.schemas';
export { assertActiveMeter } from './meter.service';
export { addToHoursSql, holdCustomerUsage } from './usage-event.records';
export { meterTotal, meterWindows, recordUsageEvents } from './usage-event.service';
export { priceQuantity, priceUsageLine } from './usage-pricing';
export type { LinePricing, Pricing } from './usage-pricing';
export { registerUsageRoutes } from './usage.routes';
