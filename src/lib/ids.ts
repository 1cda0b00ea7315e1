import crypto from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` base62 characters from the byte blocks `block(0)`, `block(1)`...: unbiased by rejection sampling. */
function base62(length: number, block: (round: number) => Buffer): string {
  let out = '';
  for (let round = 0; out.length < length; round++) {
    for (const byte of block(round)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** 24 random base62 characters: ~143 bits. */
function randomBase62(length: number): string {
  return base62(length, () => crypto.randomBytes(length * 2));
}

export const ID_PREFIXES = {
  account: 'acct',
  apiKey: 'key',
  customer: 'cus',
  event: 'evt',
  subscription: 'sub',
  subscriptionItem: 'si',
  product: 'prod',
  price: 'price',
  taxRate: 'txr',
  paymentMethod: 'pm',
  transaction: 'txn',
  gatewayCharge: 'ch',
  gatewayRefund: 're',
  invoiceLine: 'il',
  webhookDestination: 'we',
  webhookDelivery: 'whd',
  webhookAttempt: 'wha',
  terminal: 'tml',
  terminalSale: 'tms',
  paymentPlan: 'pp',
  paymentPlanPayment: 'ppay',
  testClock: 'clock',
  user: 'usr',
  invitation: 'invite',
  creditNote: 'cn',
  creditNoteLine: 'cnl',
  customerBalanceTransaction: 'cbtxn',
  billingPortalSession: 'bps',
  checkoutSession: 'cs',
  email: 'eml',
  passwordReset: 'pwreset',
  coupon: 'coup',
  discount: 'di',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** A new resource id: `<prefix>_<24 base62 chars>`, matching the spec's `^[a-z]+_[a-zA-Z0-9]+$`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomBase62(24)}`;
}

/**
 * The id a seed names (an Idempotency-Key's claim, src/http/idempotency.ts): the same seed gives the
 * same id, in the format of newId. The seed is secret, so the id is as unguessable as a random one.
 */
export function idFromSeed(kind: IdKind, seed: string): string {
  return `${ID_PREFIXES[kind]}_${base62(24, (round) => crypto.createHash('sha256').update(`${kind}\n${round}\n${seed}`).digest())}`;
}

/** A secret token with a readable prefix (API keys, webhook secrets). */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBase62(40)}`;
}

export function newUuid(): string {
  return crypto.randomUUID();
}
