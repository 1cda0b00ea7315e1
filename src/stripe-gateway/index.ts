// The stripe-gateway module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { verifyStripeSecretKey } from './stripe-client';
export { stripeGateway } from './stripe-gateway';
export { stripeTerminalProcessor } from './stripe-terminal';
export { stripeWebhookRouter } from './processor-webhook.routes';
