import crypto from 'node:crypto';
import { METADATA_ENCODING_KEY, type DataConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { derivedKeys } from '../lib/encryption';

/**
 * Customer data in Temporal (docs/operations.md, "Customer data in Temporal"): every payload the
 * service hands to Temporal (workflow and activity inputs and results, updates, queries, memo, the
 * summaries and details of the Web UI) is sealed with AES-256-GCM before it leaves the process, under
 * a key derived from SECRETS_ENCRYPTION_KEY (src/lib/encryption.ts). The sealed payload is the
 * original one, protobuf-encoded, with metadata `encoding: binary/encrypted` and the key's id
 * (`encryption-key-id`): a key rotated out but still listed in SECRETS_ENCRYPTION_OLD_KEYS opens
 * what it sealed. A payload without that encoding (histories recorded before, a client without
 * the codec) passes through decode unchanged.
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const PURPOSE = 'temporal-payload-codec/v1';
/** Associated data: a sealed payload opens only as one of this service's Temporal payloads. */
const AAD = Buffer.from('billing-service/temporal-payload/v1');
const IV_BYTES = 12;
const TAG_BYTES = 16;

const { Payload: PayloadMessage } = temporal.api.common.v1;

function text(bytes: Uint8Array | null | undefined): string | undefined {
  return bytes ? Buffer.from(bytes).toString('utf8') : undefined;
}

export function isEncrypted(payload: Payload): boolean {
  return text(payload.metadata?.[METADATA_ENCODING_KEY]) === ENCRYPTED_ENCODING;
}

/** The codec of every Temporal client and worker the service creates (billingDataConverter). */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { current } = derivedKeys(PURPOSE, this.env);
    return payloads.map((payload) => {
      const iv = crypto.randomBytes(IV_BYTES);
      const cipher = crypto.createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(AAD);
      const body = Buffer.concat([cipher.update(PayloadMessage.encode(payload).finish()), cipher.final()]);
      return {
        metadata: {
          [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING),
          [KEY_ID_METADATA]: Buffer.from(current.id),
        },
        data: Buffer.concat([iv, cipher.getAuthTag(), body]),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    const keys = derivedKeys(PURPOSE, this.env);
    return payloads.map((payload) => {
      if (!isEncrypted(payload)) return payload;
      const keyId = text(payload.metadata?.[KEY_ID_METADATA]) ?? '';
      const key = keys.byId(keyId);
      if (!key)
        throw new Error(
          `No encryption key with id ${keyId} for a Temporal payload: set it in SECRETS_ENCRYPTION_KEY or SECRETS_ENCRYPTION_OLD_KEYS`,
        );
      const raw = Buffer.from(payload.data ?? []);
      if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('An encrypted Temporal payload is too short');
      const decipher = crypto.createDecipheriv('aes-256-gcm', key.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(AAD);
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      const decoded = PayloadMessage.decode(plain);
      return { metadata: decoded.metadata, data: decoded.data };
    });
  }
}

/**
 * The data converter of every Temporal client, worker and replay the service makes (API, worker, CLI
 * commands, tests, bench): the default payload converter, then the encryption codec.
 */
export function billingDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(env)] };
}
