import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/**
 * scrypt parameters (docs/api.md "Dashboard sessions"): N = 2^15, r = 8, p = 1 costs about 32 MB and
 * a few tens of ms, OWASP's recommended floor. They are stored with each hash, so raising them later
 * leaves existing hashes verifiable.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 64;
const maxmem = (params: { N: number; r: number }) => 256 * params.N * params.r;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...PARAMS, maxmem: maxmem(PARAMS) });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** A hash of no password: checked when the email is unknown, so that answer takes as long as a wrong password. */
let decoy: Promise<string> | undefined;

export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const target = stored ?? (await (decoy ??= hashPassword(crypto.randomBytes(16).toString('hex'))));
  const [scheme, n, r, p, salt, hash] = target.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password.normalize('NFC'), Buffer.from(salt, 'base64url'), expected.length, {
    ...params,
    maxmem: maxmem(params),
  });
  return crypto.timingSafeEqual(actual, expected) && stored !== undefined;
}
