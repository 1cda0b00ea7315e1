import type { components } from '../client/schema';

/**
 * The dashboard calls the same REST endpoints merchants call, with the session cookie (sent by the
 * browser) and, on writes, the session's CSRF token (docs/api.md "Dashboard sessions").
 */
export interface ApiErrorBody {
  type: string;
  code: string;
  message: string;
  param?: string;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: ApiErrorBody,
  ) {
    super(error.message);
  }
}

let csrfToken: string | undefined;
let onSignedOut: () => void = () => undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when an answer says the session has ended, so the app shows the sign-in page. */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/**
 * A new Idempotency-Key (docs/api.md "Idempotency"): one per thing a person means to do once, sent
 * with every request for it, so a double click, a second submit or a retry after a lost answer
 * creates, charges or refunds once. 128 random bits, from crypto.getRandomValues (randomUUID needs a
 * secure context).
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  options: { idempotencyKey?: string } = {},
): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return undefined as T;
  const json = (await response.json().catch(() => undefined)) as { error?: ApiErrorBody } | undefined;
  if (!response.ok) {
    const error = json?.error ?? {
      type: 'api_error',
      code: 'unknown',
      message: `The server answered ${response.status}.`,
    };
    if (response.status === 401 && !path.startsWith('/dashboard/api/session')) onSignedOut();
    throw new ApiFailure(response.status, error);
  }
  return json as T;
}

export type Role = 'standard' | 'developer' | 'superadmin';

export interface Session {
  user: { id: string; email: string; name: string };
  account: { id: string; name: string; role: Role; time_zone: string } | null;
  accounts: { id: string; name: string; role: Role; time_zone: string }[];
  csrf_token: string;
  expires_at: number;
  temporal_workflows_url: string;
}

export interface Page<T> {
  data: T[];
  meta: { page: number; take: number; itemsTotal: number; pagesTotal: number };
}

/** Resources as the API's OpenAPI document describes them (src/client/schema.d.ts, generated from /openapi.json). */
type Schemas = components['schemas'];
export type Customer = Schemas['Customer'];
export type PaymentMethod = Schemas['PaymentMethod'];
export type Price = Schemas['Price'];
export type Subscription = Schemas['Subscription'];
export type Invoice = Schemas['Invoice'];
export type InvoiceLine = Schemas['InvoiceLine'];
export type Transaction = Schemas['Transaction'];
export type Overview = Schemas['Overview'];
export type CurrencyOverview = Schemas['CurrencyOverview'];
export type Balance = Schemas['Balance'];
export type Product = Schemas['Product'];
/** A price as the catalog lists it (with `active` and `tax_behavior`), beside `Price` as a subscription item carries it. */
export type CatalogPrice = Schemas['Price'];
export type TaxRate = Schemas['TaxRate'];
export type Coupon = Schemas['Coupon'];
export type PaymentPlan = Schemas['PaymentPlan'];
export type PaymentPlanSettings = Schemas['PaymentPlanSettings'];
export type BusinessDetails = Schemas['BusinessDetails'];
export type PlanInstallment = Schemas['PaymentPlanInstallment'];
export type PlanPayment = Schemas['PaymentPlanPayment'];
export type OpenTerminalPayment = Schemas['OpenTerminalPayment'];
export type AuditEntry = Schemas['AuditEntry'];
export type EventObject = Schemas['Event'];
export type TestClock = Schemas['TestClock'];
export type DeliveryLog = Schemas['WebhookDeliveryLog'];
export type CustomerReport = Schemas['CustomerBillingReport'];
export type CreditNote = Schemas['CreditNote'];
export type BalanceTransaction = Schemas['CustomerBalanceTransaction'];
export type SearchResult = Schemas['SearchResult'];
export type SearchHit = Schemas['SearchHit'];
export type Email = Schemas['Email'];
