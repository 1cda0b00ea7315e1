import type { GatewaySettings } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { config } from '../config';
import { ApiError, badRequest } from '../http/errors';
import { open, seal } from '../lib/encryption';
import { newSecret } from '../lib/ids';
import { toUnixSeconds } from '../lib/time';
import { verifyStripeSecretKey } from '../stripe-gateway';
import { forgetGatewayAccount, writePaymentProcessor } from '../accounts';
import { expiringCache } from '../lib/expiring-cache';
import {
  readGatewaySettingsByWebhookKey,
  readGatewaySettingsRow,
  upsertGatewaySettingsRow,
} from './gateway-settings.records';
import type { GatewaySettingsInput, GatewaySettingsObject, Processor } from './gateway-settings.schemas';

/** Where processors post their events: `<PUBLIC_URL>/processor-webhooks/<processor>/<the account's webhook key>`. */
export const PROCESSOR_WEBHOOKS_PATH = '/processor-webhooks';

/** What an adapter needs of an account's connection, decrypted; never answered to anyone. */
export interface ProcessorCredentials {
  accountId: string;
  processor: Processor;
  livemode: boolean;
  secretKey: string;
  webhookSecret: string;
}

// The associated data binds each ciphertext to its account and column: copied elsewhere it does not decrypt.
const secretKeyContext = (accountId: string) => `gateway_settings:${accountId}:secret_key`;
const webhookSecretContext = (accountId: string) => `gateway_settings:${accountId}:webhook_secret`;

function webhookUrl(row: GatewaySettings): string {
  return `${config.publicUrl}${PROCESSOR_WEBHOOKS_PATH}/${row.processor}/${row.webhookKey}`;
}

function toGatewaySettingsObject(row: GatewaySettings | null): GatewaySettingsObject {
  if (!row) {
    return {
      object: 'gateway_settings',
      processor: 'simulated',
      livemode: false,
      secret_key_last4: null,
      webhook_secret_last4: null,
      publishable_key: null,
      webhook_url: null,
      updated: null,
    };
  }
  return {
    object: 'gateway_settings',
    processor: row.processor as Processor,
    livemode: row.livemode,
    secret_key_last4: row.secretKeyLast4,
    webhook_secret_last4: row.webhookSecretLast4,
    publishable_key: row.publishableKey,
    webhook_url: webhookUrl(row),
    updated: toUnixSeconds(row.updatedAt),
  };
}

/** GET /settings/gateway: the processor and the last characters of its secrets, never the secrets. */
export async function getGatewaySettings(prisma: Db, accountId: string): Promise<GatewaySettingsObject> {
  return toGatewaySettingsObject(await readGatewaySettingsRow(prisma, accountId));
}

/**
 * PUT /settings/gateway: the key is tried against the processor first (a key it refuses is a 400 naming
 * secret_key; a processor that does not answer is a 502 to retry, nothing stored), then both secrets are
 * stored encrypted. The webhook URL stays the same across changes of keys.
 */
export async function putGatewaySettings(
  prisma: Db,
  accountId: string,
  input: GatewaySettingsInput,
): Promise<GatewaySettingsObject> {
  const livemode = input.secret_key.startsWith('sk_live_');
  // Test and live never mix: a page would collect cards in one mode for charges in the other.
  if (input.publishable_key && input.publishable_key.startsWith('pk_live_') !== livemode) {
    throw badRequest(
      `publishable_key must be a ${livemode ? 'live (pk_live_)' : 'test (pk_test_)'} key, like secret_key.`,
      'publishable_key',
    );
  }
  const verdict = await verifyStripeSecretKey(input.secret_key);
  if (verdict.status === 'refused') {
    throw badRequest(`Stripe refused this secret key (${verdict.message}).`, 'secret_key', 'secret_key_refused');
  }
  if (verdict.status === 'unavailable') {
    throw new ApiError(
      'api_error',
      'gateway_unavailable',
      'Stripe did not answer while the secret key was checked; nothing was saved. Retry the same request.',
      undefined,
      502,
    );
  }
  const secretKey = seal(input.secret_key, secretKeyContext(accountId));
  const webhookSecret = seal(input.webhook_secret, webhookSecretContext(accountId));
  // The connection and the account's processor change together: the next charge goes through Stripe.
  const row = await prisma.$transaction(async (tx) => {
    await writePaymentProcessor(tx, accountId, input.processor);
    return upsertGatewaySettingsRow(
      tx,
      accountId,
      {
        processor: input.processor,
        livemode,
        secretKeyCiphertext: secretKey.ciphertext,
        secretKeyKeyId: secretKey.keyId,
        secretKeyLast4: input.secret_key.slice(-4),
        webhookSecretCiphertext: webhookSecret.ciphertext,
        webhookSecretKeyId: webhookSecret.keyId,
        webhookSecretLast4: input.webhook_secret.slice(-4),
        publishableKey: input.publishable_key ?? null,
      },
      newSecret('gwk'),
    );
  });
  credentials.forget(accountId);
  forgetGatewayAccount(accountId);
  return toGatewaySettingsObject(row);
}

function credentialsOf(row: GatewaySettings): ProcessorCredentials {
  return {
    accountId: row.accountId,
    processor: row.processor as Processor,
    livemode: row.livemode,
    secretKey: open(
      { ciphertext: row.secretKeyCiphertext, keyId: row.secretKeyKeyId },
      secretKeyContext(row.accountId),
    ),
    webhookSecret: open(
      { ciphertext: row.webhookSecretCiphertext, keyId: row.webhookSecretKeyId },
      webhookSecretContext(row.accountId),
    ),
  };
}

/**
 * How long a process keeps an account's decrypted connection: a charge then costs no read of its row. A
 * PUT clears it at once in the process that answered it, and every API and worker process when PostgreSQL
 * announces the change (docs/decisions.md §48); one that missed the announcement takes the new key within this time.
 */
export const CREDENTIALS_CACHE_MS = 30_000;
const credentials = expiringCache<ProcessorCredentials | null>(CREDENTIALS_CACHE_MS);

/** Forgets the account's connection (`null`: every account's), changed in another process. */
export function forgetProcessorCredentials(accountId: string | null): void {
  if (accountId === null) credentials.forgetAll();
  else credentials.forget(accountId);
}

/** The account's processor and its secrets, or null: no processor connected (the simulated gateway). */
export function readProcessorCredentials(prisma: Db, accountId: string): Promise<ProcessorCredentials | null> {
  return credentials.get(accountId, () =>
    readGatewaySettingsRow(prisma, accountId).then((row) => (row ? credentialsOf(row) : null)),
  );
}

/** The connection whose processor-webhook URL ends with `webhookKey` for `processor`, or null. */
export async function credentialsForWebhook(
  prisma: Db,
  processor: Processor,
  webhookKey: string,
): Promise<ProcessorCredentials | null> {
  const row = await readGatewaySettingsByWebhookKey(prisma, webhookKey);
  return row && row.processor === processor ? credentialsOf(row) : null;
}

/**
 * How the hosted pages collect a new card for the account: the service's own form (the simulated
 * gateway), Stripe's card element with the account's publishable key (card numbers go from the browser
 * to Stripe only), or not at all (Stripe connected without a publishable key).
 */
export type HostedCardEntry = { kind: 'form' } | { kind: 'stripe'; publishableKey: string } | { kind: 'none' };

export async function hostedCardEntry(prisma: Db, accountId: string): Promise<HostedCardEntry> {
  const row = await readGatewaySettingsRow(prisma, accountId);
  if (!row) return { kind: 'form' };
  return row.publishableKey ? { kind: 'stripe', publishableKey: row.publishableKey } : { kind: 'none' };
}
