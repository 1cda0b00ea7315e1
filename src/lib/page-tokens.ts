import crypto from 'node:crypto';
import { config } from '../config';

/**
 * Tokens of the pages customers open from a link (docs/decisions.md §29): 32 random bytes in base64url
 * (43 characters). Only their SHA-256 is looked up, so a copy of the table opens no page.
 */
export function newPageToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function hashPageToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/** The shape of a token in a path; anything else is an unknown link without a lookup. */
export const PAGE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** An absolute URL of a customer-facing page under PUBLIC_URL (docs/configuration.md). */
export function publicUrl(path: string): string {
  return `${config.publicUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * A path as logs may keep it: a page's token opens that page (an invoice and its payment form), so it
 * is replaced as the API never logs a key (docs/api.md "Hosted pages").
 */
export function redactPageToken(path: string): string {
  return path.replace(/^\/hosted\/(invoices|portal|checkout)\/[^/]+/, '/hosted/$1/{token}');
}
