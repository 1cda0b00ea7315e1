// The payments module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { createPaymentMethodBody, paymentMethodSchema } from './payment-method.schemas';
export type { CreatePaymentMethodInput, PaymentMethodObject } from './payment-method.schemas';
export { cardBrand, fingerprint } from './card-numbers';
export { chargeFailure } from './charge-failure';
export { assertPaysCurrency, paysCurrency } from './currencies';
export { GatewayRequestError, GatewayUnavailableError } from './gateway';
export type {
  ChargeRequest,
  ChargeResult,
  ImportPaymentMethodRequest,
  PaymentGateway,
  ProcessorPaymentMethod,
  ProcessorReport,
  RefundRequest,
  RefundResult,
  RetrieveChargeRequest,
  RetrieveRefundRequest,
} from './gateway';
export {
  defaultIfNone,
  findCustomerCard,
  insertPaymentMethodRow,
  lockCustomerMethods,
  paymentMethodOfJson,
  paymentMethodOrDefaultJsonSql,
} from './payment-method.records';
export {
  REFUND_UNAVAILABLE,
  authenticationPlace,
  chargeOutcome,
  confirmEntry,
  finishEntry,
  moveMoney,
  reconcileEntries,
  refundOutcome,
} from './gateway-attempt';
export type {
  AuthenticationPlace,
  EntryRecording,
  OpenedEntry,
  OutcomeRecorder,
  ReconciliationPass,
  ReconciliationPassInput,
} from './gateway-attempt';
export { createGateways, processorOf, registerGateway } from './gateways';
export type { GatewayFactory, GatewayTemporal, Gateways } from './gateways';
export {
  attachPaymentMethod,
  createPaymentMethod,
  detachAllInTx,
  detachCustomerMethodsAtProcessor,
  detachPaymentMethod,
  findDefaultPaymentMethod,
  findPaymentMethod,
  getCustomerPaymentMethod,
  listCustomerPaymentMethods,
  readPaymentMethod,
  toPaymentMethodObject,
} from './payment-method.service';
export { registerPaymentMethodRoutes } from './payment-method.routes';
