import { METADATA_ENCODING_KEY, defaultPayloadConverter } from '@temporalio/common';
import { newEncryptionKey } from '../../src/lib/secrets';
import { ENCRYPTED_ENCODING, EncryptionCodec, KEY_ID_METADATA } from '../../src/temporal/payload-codec';

// The payload codec of every Temporal client and worker (src/temporal/payload-codec.ts): sealed under
// the service key, opened under it or a former key, plain payloads of older histories passed through.

const input = {
  created: { id: 'sub_1', customerId: 'cus_1' },
  customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
};
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

it('seals a payload (no plain text left, encoding binary/encrypted, the key id) and opens it again', async () => {
  const codec = new EncryptionCodec({ SECRETS_ENCRYPTION_KEY: newEncryptionKey() });
  const plain = defaultPayloadConverter.toPayload(input);
  const [sealed] = await codec.encode([plain]);
  expect(text(sealed!.metadata![METADATA_ENCODING_KEY])).toBe(ENCRYPTED_ENCODING);
  expect(text(sealed!.metadata![KEY_ID_METADATA])).toMatch(/^[0-9a-f]{16}$/);
  expect(Buffer.from(sealed!.data!).includes('ada@example.com')).toBe(false);
  expect(Buffer.from(sealed!.data!).includes('json/plain')).toBe(false);
  const [opened] = await codec.decode([sealed!]);
  expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(input);
  expect(text(opened!.metadata![METADATA_ENCODING_KEY])).toBe('json/plain');
  // A fresh IV each time: the same value seals to different bytes.
  const [again] = await codec.encode([plain]);
  expect(Buffer.from(again!.data!).equals(Buffer.from(sealed!.data!))).toBe(false);
});

it('passes plain payloads (histories recorded before) through decode', async () => {
  const codec = new EncryptionCodec({ SECRETS_ENCRYPTION_KEY: newEncryptionKey() });
  const plain = defaultPayloadConverter.toPayload(input);
  expect(await codec.decode([plain])).toEqual([plain]);
});

it('opens under a former key kept in SECRETS_ENCRYPTION_OLD_KEYS, and names the key it lacks', async () => {
  const [oldKey, newKey] = [newEncryptionKey(), newEncryptionKey()];
  const [sealed] = await new EncryptionCodec({ SECRETS_ENCRYPTION_KEY: oldKey }).encode([
    defaultPayloadConverter.toPayload(input),
  ]);
  const rotated = new EncryptionCodec({ SECRETS_ENCRYPTION_KEY: newKey, SECRETS_ENCRYPTION_OLD_KEYS: oldKey });
  expect(defaultPayloadConverter.fromPayload((await rotated.decode([sealed!]))[0]!)).toEqual(input);
  const [resealed] = await rotated.encode([defaultPayloadConverter.toPayload(input)]);
  expect(text(resealed!.metadata![KEY_ID_METADATA])).not.toBe(text(sealed!.metadata![KEY_ID_METADATA]));
  await expect(new EncryptionCodec({ SECRETS_ENCRYPTION_KEY: newKey }).decode([sealed!])).rejects.toThrow(
    `No encryption key with id ${text(sealed!.metadata![KEY_ID_METADATA])}`,
  );
});

it('refuses a payload changed after sealing', async () => {
  const codec = new EncryptionCodec({ SECRETS_ENCRYPTION_KEY: newEncryptionKey() });
  const [sealed] = await codec.encode([defaultPayloadConverter.toPayload(input)]);
  const data = Buffer.from(sealed!.data!);
  data[data.length - 1]! ^= 1;
  await expect(codec.decode([{ ...sealed!, data }])).rejects.toThrow();
});
