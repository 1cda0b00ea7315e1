import crypto from 'node:crypto';
import { decodeEncryptionKey, secretValue } from './secrets';

/**
 * Secrets at rest: AES-256-GCM under SECRETS_ENCRYPTION_KEY. The stored text is
 * base64(iv 12 bytes | tag 16 bytes | ciphertext) and the key's id (first 16 hex digits of its SHA-256)
 * is stored beside it; keys listed in SECRETS_ENCRYPTION_OLD_KEYS still decrypt, so the key can rotate.
 * The associated data binds a ciphertext to its row: copied to another row it does not decrypt.
 */
export interface Sealed {
  ciphertext: string;
  keyId: string;
}

function keyIdOf(key: Buffer): string {
  return crypto.createHash('sha256').update(key).digest('hex').slice(0, 16);
}

function parseKey(text: string, name: string): Buffer {
  const key = decodeEncryptionKey(text.trim());
  if (!key) throw new Error(`${name} must be 32 bytes in base64 (openssl rand -base64 32)`);
  return key;
}

interface Keyring {
  current: { id: string; key: Buffer };
  byId: Map<string, Buffer>;
}

let cached: { source: string; keyring: Keyring } | undefined;

function keyring(env: NodeJS.ProcessEnv = process.env): Keyring {
  const source = `${secretValue('SECRETS_ENCRYPTION_KEY', env)}|${env.SECRETS_ENCRYPTION_OLD_KEYS ?? ''}`;
  if (cached?.source === source) return cached.keyring;
  const current = parseKey(secretValue('SECRETS_ENCRYPTION_KEY', env), 'SECRETS_ENCRYPTION_KEY');
  const old = (env.SECRETS_ENCRYPTION_OLD_KEYS ?? '')
    .split(',')
    .filter((text) => text.trim() !== '')
    .map((text) => parseKey(text, 'SECRETS_ENCRYPTION_OLD_KEYS'));
  const byId = new Map([...old, current].map((key) => [keyIdOf(key), key]));
  const result = { current: { id: keyIdOf(current), key: current }, byId };
  cached = { source, keyring: result };
  return result;
}

export function currentKeyId(): string {
  return keyring().current.id;
}

export function seal(plaintext: string, associatedData: string): Sealed {
  const { current } = keyring();
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', current.key, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'), keyId: current.id };
}

export function open(sealed: Sealed, associatedData: string): string {
  const key = keyring().byId.get(sealed.keyId);
  if (!key)
    throw new Error(
      `No encryption key with id ${sealed.keyId}: set it in SECRETS_ENCRYPTION_KEY or SECRETS_ENCRYPTION_OLD_KEYS`,
    );
  const raw = Buffer.from(sealed.ciphertext, 'base64');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/** A key derived from one SECRETS_ENCRYPTION_KEY for one purpose, under that key's id. */
export interface DerivedKey {
  id: string;
  key: Buffer;
}

const derivedCache = new Map<string, DerivedKey>();

function derive(id: string, key: Buffer, purpose: string): DerivedKey {
  const cacheKey = `${purpose}|${id}`;
  let derived = derivedCache.get(cacheKey);
  if (!derived) {
    derived = {
      id,
      key: Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(0), `billing-service/${purpose}`, 32)),
    };
    derivedCache.set(cacheKey, derived);
  }
  return derived;
}

/**
 * Keys for another use of SECRETS_ENCRYPTION_KEY (HKDF-SHA256 with the purpose as its info), so one
 * secret serves several uses without one use's output helping against another's: `current` under the
 * current key, `byId` under any key still listed (rotation: a former key's id still finds its key),
 * `all` current first. The ids are the master keys' ids, as stored beside sealed secrets.
 */
export function derivedKeys(purpose: string, env: NodeJS.ProcessEnv = process.env) {
  const ring = keyring(env);
  return {
    current: derive(ring.current.id, ring.current.key, purpose),
    byId(id: string): DerivedKey | undefined {
      const key = ring.byId.get(id);
      return key ? derive(id, key, purpose) : undefined;
    },
    all(): DerivedKey[] {
      return [
        ring.current,
        ...[...ring.byId].filter(([id]) => id !== ring.current.id).map(([id, key]) => ({ id, key })),
      ].map(({ id, key }) => derive(id, key, purpose));
    },
  };
}
