import { currentKeyId } from '../../src/lib/encryption';
import { newEncryptionKey, BUILT_IN_SECRETS } from '../../src/lib/secrets';
import { encryptStoredSecrets, signingSecrets } from '../../src/webhooks/destination.service';
import { verifySignature } from '../../src/webhooks/signing';
import { apiClient, createTestAccount, type ApiClient, type TestApp } from '../support/harness';
import type { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookStack, type WebhookStack } from '../support/webhooks';

// Webhook signing secrets encrypted at rest; roll-secret signs with both for 24 h.
const TASK_QUEUE = 'webhook-secrets-test';

let stack: WebhookStack;
let app: TestApp;
let target: WebhookReceiver;
let relayedAccounts: string[];

beforeAll(async () => {
  stack = await startWebhookStack(TASK_QUEUE);
  ({ app, receiver: target, accounts: relayedAccounts } = stack);
});

afterAll(() => stack.close());

async function account(name = 'Secrets') {
  const created = await createTestAccount(app.prisma, { name });
  relayedAccounts.push(created.accountId);
  return { ...created, api: apiClient(app.baseUrl, created.apiKey) };
}

/** Creates a customer and answers the delivery of its customer.created to `target`. */
async function deliveryOf(api: ApiClient) {
  const customer = (await api.post('/customers', { name: 'Signed' })).body as { id: string };
  const [request] = await target.waitFor(1, {
    filter: (received) => received.json?.data?.id === customer.id,
    timeoutMs: 30_000,
  });
  return { signature: request!.headers['cc-signature'] as string, body: request!.body };
}

describe('webhook secrets at rest', () => {
  it('are stored only as AES-256-GCM ciphertext with the key id beside it', async () => {
    const { api } = await account();
    const created = (await api.post('/webhook/destination', { url: target.url })).body as {
      id: string;
      secret: string;
    };
    const row = await app.prisma.webhookDestination.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.secret).toBeNull();
    expect(row.secretKeyId).toBe(currentKeyId());
    expect(JSON.stringify(row)).not.toContain(created.secret.slice(6));
    expect(Buffer.from(row.secretCiphertext!, 'base64').length).toBe(12 + 16 + created.secret.length);
    expect(signingSecrets(row)).toEqual([created.secret]);
    // Bound to its row: the same ciphertext under another destination id does not decrypt.
    expect(() => signingSecrets({ ...row, id: 'we_other' })).toThrow();
  });

  it('roll-secret answers a new secret once, signs with both for 24 h, then with the new one only; 404 for another account', async () => {
    const { api } = await account();
    const other = await account('Other');
    const created = (await api.post('/webhook/destination', { url: target.url })).body as {
      id: string;
      secret: string;
    };
    const before = await deliveryOf(api);
    expect(before.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(before.signature, created.secret, before.body)).toBe(true);

    expect((await other.api.post(`/webhook/destination/${created.id}/roll-secret`)).status).toBe(404);
    const rolled = await api.post(`/webhook/destination/${created.id}/roll-secret`);
    expect(rolled.status).toBe(200);
    expect(rolled.body).toMatchObject({
      id: created.id,
      object: 'webhook_destination',
      secret: expect.stringMatching(/^whsec_[a-zA-Z0-9]{40}$/),
    });
    expect(rolled.body.secret).not.toBe(created.secret);
    expect((await api.get('/webhook/destination')).body[0].secret).toBeUndefined();
    const row = await app.prisma.webhookDestination.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.previousSecretExpiresAt!.getTime() - Date.now()).toBeGreaterThan(24 * 3_600_000 - 60_000);
    expect(JSON.stringify(row)).not.toContain(created.secret.slice(6));
    expect(JSON.stringify(row)).not.toContain(rolled.body.secret.slice(6));

    const during = await deliveryOf(api);
    expect(during.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifySignature(during.signature, rolled.body.secret, during.body)).toBe(true);
    expect(verifySignature(during.signature, created.secret, during.body)).toBe(true);

    await app.prisma.webhookDestination.update({
      where: { id: created.id },
      data: { previousSecretExpiresAt: new Date(Date.now() - 1000) },
    });
    const after = await deliveryOf(api);
    expect(after.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(after.signature, rolled.body.secret, after.body)).toBe(true);
    expect(verifySignature(after.signature, created.secret, after.body)).toBe(false);
  });

  it('plain-text rows from before are encrypted by the sweep, and a rotated SECRETS_ENCRYPTION_KEY re-encrypts with old keys still readable', async () => {
    const { accountId } = await account();
    const legacy = await app.prisma.webhookDestination.create({
      data: { id: 'we_legacy_secret', accountId, url: target.url, secret: 'whsec_legacyPlainText' },
    });
    expect(signingSecrets(legacy)).toEqual(['whsec_legacyPlainText']);
    expect(await encryptStoredSecrets(app.prisma)).toBeGreaterThanOrEqual(1);
    const encrypted = await app.prisma.webhookDestination.findUniqueOrThrow({ where: { id: legacy.id } });
    expect(encrypted).toMatchObject({ secret: null, secretKeyId: currentKeyId() });
    expect(signingSecrets(encrypted)).toEqual(['whsec_legacyPlainText']);
    expect(await encryptStoredSecrets(app.prisma)).toBe(0);

    const oldKeyId = currentKeyId();
    process.env.SECRETS_ENCRYPTION_KEY = newEncryptionKey();
    process.env.SECRETS_ENCRYPTION_OLD_KEYS = BUILT_IN_SECRETS.SECRETS_ENCRYPTION_KEY;
    try {
      expect(currentKeyId()).not.toBe(oldKeyId);
      expect(signingSecrets(encrypted)).toEqual(['whsec_legacyPlainText']); // still readable with the old key
      expect(await encryptStoredSecrets(app.prisma)).toBeGreaterThanOrEqual(1);
      const rotated = await app.prisma.webhookDestination.findUniqueOrThrow({ where: { id: legacy.id } });
      expect(rotated.secretKeyId).toBe(currentKeyId());
      delete process.env.SECRETS_ENCRYPTION_OLD_KEYS;
      expect(signingSecrets(rotated)).toEqual(['whsec_legacyPlainText']);
    } finally {
      // Back to the built-in key for the rest of the suite: re-encrypt what this test moved.
      const testKey = process.env.SECRETS_ENCRYPTION_KEY;
      delete process.env.SECRETS_ENCRYPTION_KEY;
      process.env.SECRETS_ENCRYPTION_OLD_KEYS = testKey;
      await encryptStoredSecrets(app.prisma);
      delete process.env.SECRETS_ENCRYPTION_OLD_KEYS;
    }
  });
});
