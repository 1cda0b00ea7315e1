import { expectStatus, type ApiClient } from './harness';
import { addPaymentMethod, cardBody, CARDS } from './payments';

/** Advances a test clock and waits until it is ready again (everything due up to then has run). */
export async function advanceClock(api: ApiClient, clockId: string, frozenTime: number, timeoutMs = 90_000) {
  expectStatus(await api.post(`/test-helpers/test-clocks/${clockId}/advance`, { frozen_time: frozenTime }), 202);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const clock = expectStatus(await api.get(`/test-helpers/test-clocks/${clockId}`), 200);
    if (clock.status === 'ready') return clock;
    if (Date.now() > deadline) throw new Error(`clock ${clockId} still advancing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A subscription's invoices, oldest first. */
export async function subscriptionInvoices(api: ApiClient, subscriptionId: string): Promise<any[]> {
  const page = expectStatus(await api.get(`/invoices?subscription=${subscriptionId}&take=100`), 200);
  return (page.data as any[]).sort((a, b) => a.created - b.created || a.period_start - b.period_start);
}

/** A test clock frozen at `start` and a customer on it with a working card (and `extra` fields, a coupon...). */
export async function customerOnClock(api: ApiClient, start: number, extra: Record<string, unknown> = {}) {
  const clock = expectStatus(await api.post('/test-helpers/test-clocks', { frozen_time: start }), 201, 'clock');
  const customer = expectStatus(
    await api.post('/customers', { name: 'On a clock', test_clock: clock.id, ...extra }),
    201,
    'POST /customers',
  );
  const method = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
  return { clock, customer, method };
}

/** A monthly-style subscription of `items` for a customer on a clock, started at `start` and paid by `method` (201). */
export async function subscribeOnClock(
  api: ApiClient,
  owner: { customer: { id: string }; method: { id: string } },
  items: { price: string; quantity: number; tax?: string[] }[],
  start: number,
  extra: Record<string, unknown> = {},
) {
  return expectStatus(
    await api.post('/subscriptions', {
      customer: owner.customer.id,
      items,
      trial_days: 0,
      start_date: start,
      default_payment_method: owner.method.id,
      ...extra,
    }),
    201,
    'POST /subscriptions',
  );
}

/** What an invoice bills, without what only a written invoice has (ids, number, payment, customer snapshot). */
export function billedShape(invoice: any) {
  return {
    billing_reason: invoice.billing_reason,
    currency: invoice.currency,
    period_start: invoice.period_start,
    period_end: invoice.period_end,
    subtotal: invoice.subtotal,
    subtotal_excluding_tax: invoice.subtotal_excluding_tax,
    tax: invoice.tax,
    total: invoice.total,
    total_excluding_tax: invoice.total_excluding_tax,
    total_tax_amounts: invoice.total_tax_amounts,
    total_discount_amounts: invoice.total_discount_amounts,
    lines: invoice.lines.map(({ id: _id, ...line }: any) => line),
  };
}
