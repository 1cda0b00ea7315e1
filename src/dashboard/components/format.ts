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

/**
 * Dates and times are shown in the account's time zone (session `account.time_zone`, docs/decisions.md
 * §21), not the reader's: colleagues in two countries read the same day. Times carry the zone's
 * abbreviation so nobody takes them for local ones.
 */
let timeZone = 'UTC';
let dateFormat = makeFormats('UTC').date;
let dateTimeFormat = makeFormats('UTC').dateTime;

function makeFormats(zone: string) {
  return {
    date: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: zone }),
    dateTime: new Intl.DateTimeFormat(undefined, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
      timeZone: zone,
    }),
  };
}

/** Sets the zone every date and time is shown in (the App calls it with the session's account's). */
export function setTimeZone(zone: string | undefined): void {
  const next = zone || 'UTC';
  if (next === timeZone) return;
  try {
    ({ date: dateFormat, dateTime: dateTimeFormat } = makeFormats(next));
    timeZone = next;
  } catch {
    // A zone this browser's Intl does not know: stay on the last one rather than fail every page.
  }
}

export function currentTimeZone(): string {
  return timeZone;
}

/** Unix seconds (the API's times) as a date in the account's time zone. */
export function formatDate(seconds: number | null | undefined): string {
  return seconds == null ? '—' : dateFormat.format(new Date(seconds * 1000));
}

/** Unix seconds as a date and time in the account's time zone, with its abbreviation (`Nov 24, 2026, 6:00 PM EST`). */
export function formatDateTime(seconds: number | null | undefined): string {
  return seconds == null ? '—' : dateTimeFormat.format(new Date(seconds * 1000));
}

/** How far the zone's wall clock is ahead of UTC at `ms`, in milliseconds. */
function zoneOffsetMs(ms: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(ms));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - Math.floor(ms / 1000) * 1000;
}

/** Unix seconds of midnight starting the calendar day (`year`, `month` 1-12, `day`) in the account's zone. */
export function startOfDay(year: number, month: number, day: number): number {
  const guess = Date.UTC(year, month - 1, day);
  let ms = guess - zoneOffsetMs(guess);
  // Across a change of offset (summer time) the first guess is an hour off: one correction settles it.
  ms = guess - zoneOffsetMs(ms);
  return Math.floor(ms / 1000);
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

/** Cents from what a person types (`12.5`, `12.50`), in a currency with two decimals; undefined when not money. */
/** Cents as an amount field shows them, "12.50": integer arithmetic only, the inverse of centsFromText. */
export function textFromCents(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

export function centsFromText(text: string): number | undefined {
  const match = /^\s*(\d+)(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}
