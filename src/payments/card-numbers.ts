import { secretValue } from '../lib/secrets';
import crypto from 'node:crypto';

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

const BRAND_RULES: { brand: string; matches: (n: string) => boolean }[] = [
  { brand: 'amex', matches: (n) => /^3[47]/.test(n) },
  { brand: 'diners', matches: (n) => /^3(0[0-5]|[689])/.test(n) },
  {
    brand: 'jcb',
    matches: (n) => {
      const p = Number(n.slice(0, 4));
      return p >= 3528 && p <= 3589;
    },
  },
  { brand: 'visa', matches: (n) => n.startsWith('4') },
  {
    brand: 'mastercard',
    matches: (n) => {
      const p2 = Number(n.slice(0, 2));
      const p4 = Number(n.slice(0, 4));
      return (p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720);
    },
  },
  {
    brand: 'discover',
    matches: (n) => {
      const p3 = Number(n.slice(0, 3));
      return n.startsWith('6011') || n.startsWith('65') || (p3 >= 644 && p3 <= 649);
    },
  },
  { brand: 'unionpay', matches: (n) => n.startsWith('62') },
];

/** Lowercase brand from the number's prefix (IIN ranges); `unknown` when none matches. */
export function cardBrand(digits: string): string {
  return BRAND_RULES.find((rule) => rule.matches(digits))?.brand ?? 'unknown';
}

/** ABA routing number checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10). */
export function isValidRoutingNumber(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const d = [...routing].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}

// A server-side secret makes fingerprints useless for guessing numbers offline (they are not plain hashes).
const FINGERPRINT_SECRET = secretValue('PAYMENT_FINGERPRINT_SECRET');

/** Same number, same account -> same fingerprint; never reversible without the server secret. */
export function fingerprint(accountId: string, kind: 'card' | 'us_bank_account', value: string): string {
  return crypto
    .createHmac('sha256', FINGERPRINT_SECRET)
    .update(`${accountId}\u0000${kind}\u0000${value}`)
    .digest('base64url')
    .slice(0, 16);
}
