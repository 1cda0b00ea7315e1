import type { components } from '../../client/schema';

/** Resources as the API's OpenAPI document describes them (src/client/schema.d.ts, generated from /openapi.json). */
type Schemas = components['schemas'];
export type Customer = Schemas['Customer'];
export type PaymentMethod = Schemas['PaymentMethod'];
export type Price = Schemas['Price'];
export type Subscription = Schemas['Subscription'];
export type Invoice = Schemas['Invoice'];
export type Transaction = Schemas['Transaction'];
export type Overview = Schemas['Overview'];
export type CurrencyOverview = Schemas['CurrencyOverview'];
export type Balance = Schemas['Balance'];
export type Product = Schemas['Product'];
export type TaxRate = Schemas['TaxRate'];
export type Coupon = Schemas['Coupon'];
export type PaymentPlan = Schemas['PaymentPlan'];
export type PlanPayment = Schemas['PaymentPlanPayment'];
export type EventObject = Schemas['Event'];
export type TestClock = Schemas['TestClock'];
export type TestEmail = Schemas['TestEmail'];
export type DeliveryLog = Schemas['WebhookDeliveryLog'];
export type WebhookDestination = Schemas['WebhookDestination'];
export type ApiKey = Schemas['ApiKey'];
export type CustomerReport = Schemas['CustomerBillingReport'];
export type CreditNote = Schemas['CreditNote'];
export type BalanceTransaction = Schemas['CustomerBalanceTransaction'];
export type SearchHit = Schemas['SearchHit'];
export type Email = Schemas['Email'];
export type BusinessDetails = Schemas['BusinessDetails'];
export type BusinessDetailsUpdate = Schemas['BusinessDetailsUpdate'];
export type PaymentPlanSettings = Schemas['PaymentPlanSettings'];
export type AccountSettings = Schemas['AccountSettings'];
export type Member = Schemas['Member'];
export type Invitation = Schemas['Invitation'];

export type Role = 'standard' | 'developer' | 'superadmin';

/** Who is signed in, on which account (GET /dashboard/api/session, docs/api.md "Dashboard sessions"). */
export interface Session {
  user: { id: string; email: string; name: string };
  account: { id: string; name: string; role: Role; time_zone: string } | null;
  accounts: { id: string; name: string; role: Role; time_zone: string }[];
  csrf_token: string;
  expires_at: number;
  temporal_workflows_url: string;
}
