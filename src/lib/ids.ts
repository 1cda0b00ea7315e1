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

/** `length` random base62 characters (24: ~143 bits) from fresh bytes of the system's generator. */
function randomBase62(length: number): string {
  return base62(length, () => crypto.randomBytes(length * 2));
}

/**
 * Random bytes for ids, taken from a pool refilled 8 KB at a time, as crypto.randomUUID buffers its own: one
 * call to the system's generator per ~170 ids instead of one per id (a system call each, measurable on the
 * creation path: docs/performance.md, "Fourteenth round"). No byte is handed out twice. Secrets do not use it
 * (newSecret): they are never left in a buffer ahead of their use.
 */
const ID_POOL_BYTES = 8192;
let idPool = Buffer.alloc(0);
let idPoolOffset = 0;
function pooledRandomBytes(size: number): Buffer {
  if (idPoolOffset + size > idPool.length) {
    idPool = crypto.randomBytes(Math.max(ID_POOL_BYTES, size));
    idPoolOffset = 0;
  }
  const block = idPool.subarray(idPoolOffset, idPoolOffset + size);
  idPoolOffset += size;
  return block;
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
  meter: 'mtr',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** A new resource id: `<prefix>_<24 base62 chars>`, matching the spec's `^[a-z]+_[a-zA-Z0-9]+$`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${base62(24, () => pooledRandomBytes(48))}`;
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
