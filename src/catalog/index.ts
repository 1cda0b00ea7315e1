// The catalog module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { TAX_BEHAVIORS, priceSchema } from './price.schemas';
export type { PriceObject } from './price.schemas';
export { productSchema } from './product.schemas';
export { taxRateSchema } from './tax-rate.schemas';
export type { TaxRateObject } from './tax-rate.schemas';
export {
  PRICE_COLUMNS,
  TAX_RATE_COLUMNS,
  activeTaxRateIds,
  priceOfRow,
  readActiveTaxRates,
  readPriceAmounts,
  readPrices,
  readTaxRates,
  toPriceObject,
  withProductNames,
} from './records';
export { computeTax } from './tax';
export type { TaxAmount, TaxBehavior, TaxRateForCalc, TaxResult } from './tax';
export { registerTaxRateRoutes } from './tax-rate.routes';
export { findTaxRates, taxRateOfRow, taxRatesInOrder, toTaxRateObject } from './tax-rate.service';
export {
  assertBillablePrice,
  assertSubscribablePrice,
  findPrice,
  findPricesForUse,
  isMeteredPrice,
  markPricesBilled,
  pricingOf,
} from './price.service';
export { registerPriceRoutes } from './price.routes';
export { registerProductRoutes } from './product.routes';
