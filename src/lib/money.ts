/** The most any invoice, plan or single charge may be: the spec's price ceiling, 99999999 cents. */
export const MAX_CHARGE_AMOUNT = 99_999_999;

/**
 * An amount in the currency's smallest unit, written for people: `formatMoney(20000, 'USD')` is
 * `$200.00`, `formatMoney(500, 'JPY')` `¥500`, `formatMoney(1999, 'EUR')` `€19.99`. Pure (no I/O),
 * so workflows may use it too.
 */
export function formatMoney(amount: number | bigint, currency: string): string {
  const { format, digits } = currencyFormat(currency.toUpperCase());
  return format.format(Number(amount) / 10 ** digits);
}

/**
 * One formatter per currency, made once: making an Intl.NumberFormat costs about as much CPU as a
 * prepared statement (each subscription creation formats its items for the workflow's summary).
 */
const formats = new Map<string, { format: Intl.NumberFormat; digits: number }>();

function currencyFormat(currency: string): { format: Intl.NumberFormat; digits: number } {
  let known = formats.get(currency);
  if (!known) {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    known = { format, digits: format.resolvedOptions().maximumFractionDigits ?? 2 };
    formats.set(currency, known);
  }
  return known;
}
