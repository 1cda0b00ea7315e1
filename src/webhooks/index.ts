// The webhooks module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { countWebhookAttempt } from './attempt-metrics';
export { attemptDelivery } from './delivery-attempt.service';
export type { WebhookAttemptInput, WebhookAttemptResult, WebhookDeliveryStatus } from './delivery-attempt.service';
export { encryptStoredSecrets } from './destination.service';
export { WEBHOOK_TIMEOUT_MS } from './sender';
export { startRelay } from './relay';
export { registerWebhookRoutes } from './webhook.routes';
