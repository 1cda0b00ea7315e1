// The customers module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { createCustomerBody, customerIdParams, customerSchema } from './customer.schemas';
export type { Address, CreateCustomerInput } from './customer.schemas';
export {
  CUSTOMER_COLUMNS,
  customerOfRow,
  findCustomerTestClock,
  readClockCustomerIds,
  readCustomerEvenDeleted,
  readCustomerName,
  withCustomerNames,
} from './customer.records';
export type { CustomerColumns } from './customer.records';
export {
  createCustomer,
  findCustomer,
  lockCustomer,
  markCustomerDeleted,
  searchCustomers,
  toCustomerObject,
} from './customer.service';
export { registerCustomerRoutes } from './customer.routes';
