// The gateway-settings module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { listenForGatewayChanges } from './gateway-settings.records';
export {
  PROCESSOR_WEBHOOKS_PATH,
  credentialsForWebhook,
  forgetProcessorCredentials,
  hostedCardEntry,
  readProcessorCredentials,
} from './gateway-settings.service';
export type { HostedCardEntry, ProcessorCredentials } from './gateway-settings.service';
export { registerGatewaySettingsRoutes } from './gateway-settings.routes';
