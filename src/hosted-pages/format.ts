import { formatMoney } from '../lib/money';

/** A date of the pages, in words (UTC: the pages know nothing of the customer's zone). */
export function longDate(seconds: number | null): string {
  return seconds === null
    ? ''
    : new Date(seconds * 1000).toLocaleDateString('en-US', {
        year: 'numeric',
        month: 'long',
        day: 'numeric',
        timeZone: 'UTC',
      });
}

/** `Nov 24, 2026`, for tables read on a phone. */
export function shortDate(seconds: number | null): string {
  return seconds === null
    ? ''
    : new Date(seconds * 1000).toLocaleDateString('en-US', {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        timeZone: 'UTC',
      });
}

export const money = formatMoney;

/** A link to another page of this service from its absolute URL (under PUBLIC_URL): its path, same origin. */
export function samePagePath(url: string): string {
  return new URL(url).pathname;
}
