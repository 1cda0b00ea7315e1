import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { registerPriceRoutes } from './price.routes';
import { registerProductRoutes } from './product.routes';
import { registerTaxRateRoutes } from './tax-rate.routes';

/** Products (with GET /products/taxCodes), prices and tax rates. */
export function registerCatalogRoutes(api: Api, deps: AppDeps): void {
  registerProductRoutes(api, deps);
  registerPriceRoutes(api, deps);
  registerTaxRateRoutes(api, deps);
}
