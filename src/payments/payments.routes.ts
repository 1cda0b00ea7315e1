import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { registerInvoiceRoutes } from '../invoices/invoice.routes';
import { registerTransactionRoutes } from '../transactions/transaction.routes';
import { createGateway } from './simulated-gateway';
import { registerPaymentMethodRoutes } from './payment-method.routes';

/** Payment methods, invoices, transactions and balance: one gateway shared by the routes that move money. */
export function registerPaymentRoutes(api: Api, deps: AppDeps): void {
  const gateway = createGateway(deps.prisma);
  registerPaymentMethodRoutes(api, deps);
  registerInvoiceRoutes(api, deps, gateway);
  registerTransactionRoutes(api, deps);
}
