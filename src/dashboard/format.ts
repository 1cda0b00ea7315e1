/** Money as money: integer minor units (cents) in the API, shown in the currency's own digits. */
export function formatMoney(minor: number, currency: string): string {
  const code = currency.toUpperCase();
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat(undefined, { style: 'currency', currency: code });
  } catch {
    return `${(minor / 100).toFixed(2)} ${code}`;
  }
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** digits);
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** Unix seconds (the API's times) as a date in the reader's locale and time zone. */
export function formatDate(seconds: number | null | undefined): string {
  return seconds == null ? '—' : dateFormat.format(new Date(seconds * 1000));
}

export function formatDateTime(seconds: number | null | undefined): string {
  return seconds == null ? '—' : dateTimeFormat.format(new Date(seconds * 1000));
}

export function formatInterval(recurring: { interval: string; interval_count: number } | null): string {
  if (!recurring) return 'once';
  return recurring.interval_count === 1
    ? `per ${recurring.interval}`
    : `every ${recurring.interval_count} ${recurring.interval}s`;
}

export function statusLabel(status: string): string {
  return status.replace(/_/g, ' ');
}
