// The checkout module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { claimCheckout, updateCheckout } from './checkout.records';
export { CHECKOUT_PATH, assertCheckoutCompletable, findCheckoutByToken } from './checkout.service';
export type { CheckoutItem } from './checkout.service';
export { registerCheckoutRoutes } from './checkout.routes';
