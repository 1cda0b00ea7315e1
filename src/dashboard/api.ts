import type { components } from '../client/schema';

/** Transitional: what the screens not yet moved to ./api/ import (see ./api/client.ts). */
export { ApiFailure, newIdempotencyKey, untypedApi as api } from './api/client';
export type { Role, Session } from './api/types';
export type * from './api/types';

export interface Page<T> {
  data: T[];
  meta: { page: number; take: number; itemsTotal: number; pagesTotal: number };
}

type Schemas = components['schemas'];
export type InvoiceLine = Schemas['InvoiceLine'];
/** A price as the catalog lists it (with `active` and `tax_behavior`), beside `Price` as a subscription item carries it. */
export type CatalogPrice = Schemas['Price'];
export type PaymentPlanSettings = Schemas['PaymentPlanSettings'];
export type BusinessDetails = Schemas['BusinessDetails'];
export type PlanInstallment = Schemas['PaymentPlanInstallment'];
export type OpenTerminalPayment = Schemas['OpenTerminalPayment'];
export type AuditEntry = Schemas['AuditEntry'];
export type SearchResult = Schemas['SearchResult'];
