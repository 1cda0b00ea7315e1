import crypto from 'node:crypto';
import { derivedKeys } from '../lib/encryption';
import { BILLING_CUSTOMER_EMAIL_HASH } from './search-attributes';

/**
 * The customer-email search attribute holds a keyed hash, never the address (docs/operations.md,
 * "Customer data in Temporal"): HMAC-SHA256 of the trimmed, lower-cased address under a key derived
 * from SECRETS_ENCRYPTION_KEY, in hex. Without the key a value cannot be tested against a guessed
 * address; an operator gets the value to filter on from `npm run email-hash -- <address>`.
 */
const PURPOSE = 'customer-email-hash/v1';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function hmac(key: Buffer, email: string): string {
  return crypto.createHmac('sha256', key).update(normalizeEmail(email)).digest('hex');
}

/** The value workflows started now carry: under the current key. */
export function customerEmailHash(email: string, env: NodeJS.ProcessEnv = process.env): string {
  return hmac(derivedKeys(PURPOSE, env).current.key, email);
}

/** The value under every key still listed, current first: workflows started before a rotation carry a former one. */
export function customerEmailHashes(email: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return derivedKeys(PURPOSE, env)
    .all()
    .map((key) => hmac(key.key, email));
}

/** The Web UI (visibility) filter finding an address's workflows under any listed key. */
export function customerEmailFilter(email: string, env: NodeJS.ProcessEnv = process.env): string {
  const hashes = customerEmailHashes(email, env);
  return hashes.length === 1
    ? `${BILLING_CUSTOMER_EMAIL_HASH.name} = '${hashes[0]}'`
    : `${BILLING_CUSTOMER_EMAIL_HASH.name} IN (${hashes.map((hash) => `'${hash}'`).join(', ')})`;
}
