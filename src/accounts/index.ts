// The accounts module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export {
  accountExists,
  accountSellerJsonSql,
  countAccounts,
  readAccount,
  readAccountProfile,
  readAccountSellerInTx,
  readExistingAccount,
  readGatewayAccount,
  readProrationBehavior,
  rememberAccountSellerInTx,
  updateAccountSettingsRow,
  writePaymentProcessor,
  writeProrationBehavior,
} from './account.records';
export type { AccountProfile, AccountSeller, GatewayAccount } from './account.records';
export {
  GATEWAY_KINDS,
  createAccount,
  createApiKey,
  expireApiKey,
  forgetGatewayAccount,
  gatewayAccountOf,
  isRole,
  listApiKeys,
  rotateApiKey,
} from './account.service';
export type { GatewayKind } from './account.service';
export { registerApiKeyRoutes } from './api-key.routes';
export { registerBusinessDetailsRoutes } from './business-details.routes';
export { recordOperatorAction } from './operator-action.records';
export type { OperatorActor } from './operator-action.records';
