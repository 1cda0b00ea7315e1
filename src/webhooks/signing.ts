import crypto from 'node:crypto';

export const SIGNATURE_HEADER = 'cc-signature';
export const EVENT_ID_HEADER = 'cc-event-id';

function hmac(secret: string, timestamp: number, body: string): string {
  return crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/**
 * decisions.md §10: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`, one `v1=` per
 * secret: after roll-secret, the new secret's first and the old one's while its grace period lasts.
 */
export function signatureHeader(
  secrets: string | readonly string[],
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return [`t=${timestamp}`, ...list.map((secret) => `v1=${hmac(secret, timestamp, body)}`)].join(',');
}

/**
 * What a receiver does: recompute the HMAC over the raw body and compare in constant time. The
 * timestamp bound stops a captured request from being replayed later.
 */
export function verifySignature(
  header: string | undefined,
  secret: string,
  body: string,
  { toleranceSeconds = 300, now = Math.floor(Date.now() / 1000) } = {},
): boolean {
  if (!header) return false;
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const [key, value] = item.split('=', 2);
    if (!key || value === undefined) continue;
    parts.set(key.trim(), [...(parts.get(key.trim()) ?? []), value.trim()]);
  }
  const timestamp = Number(parts.get('t')?.[0]);
  if (!Number.isInteger(timestamp) || Math.abs(now - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(hmac(secret, timestamp, body), 'hex');
  return (parts.get('v1') ?? []).some((candidate) => {
    const given = Buffer.from(candidate, 'hex');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
}
