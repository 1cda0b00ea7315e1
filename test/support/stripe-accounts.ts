import Stripe from 'stripe';
import '../../src/gateway-registrations';
import { apiClient, createTestAccount, expectStatus, startTestApp, type ApiClient, type TestApp } from './harness';
import { startLocalstripe, type StripeStandIn } from './stripe-tools';

/** The official client aimed at a stand-in (localstripe or stripe-mock), as the adapter is through STRIPE_API_BASE. */
export function stripeAt(standIn: StripeStandIn, secretKey: string): Stripe {
  const base = new URL(standIn.apiBase);
  return new Stripe(secretKey, { host: base.hostname, port: Number(base.port), protocol: 'http' });
}

export interface StripeKeys {
  secretKey: string;
  /** Without it the hosted pages take no new card. */
  publishableKey?: string;
}

/** Connects the account to Stripe through the API, as the merchant does in Settings. */
export async function connectStripe(api: ApiClient, keys: StripeKeys): Promise<void> {
  expectStatus(
    await api.put('/settings/gateway', {
      processor: 'stripe',
      secret_key: keys.secretKey,
      webhook_secret: 'whsec_StandIn',
      ...(keys.publishableKey ? { publishable_key: keys.publishableKey } : {}),
    }),
    200,
  );
}

export interface LocalstripeWorld {
  app: TestApp;
  localstripe: StripeStandIn;
  /** The account connected to Stripe (at localstripe). */
  accountId: string;
  api: ApiClient;
  /** Another account, on the simulated gateway. */
  other: ApiClient;
  /** The official client with the account's secret key, to read what Stripe holds. */
  stripe: Stripe;
  close(): Promise<void>;
}

/**
 * localstripe, the app with STRIPE_API_BASE aimed at it, an account connected to Stripe with `keys` and another
 * on the simulator; close() puts STRIPE_API_BASE back.
 */
export async function startLocalstripeWorld(name: string, keys: StripeKeys): Promise<LocalstripeWorld> {
  const apiBaseBefore = process.env.STRIPE_API_BASE;
  const localstripe = await startLocalstripe();
  process.env.STRIPE_API_BASE = localstripe.apiBase;
  const app = await startTestApp();
  const account = await createTestAccount(app.prisma, { name });
  const api = apiClient(app.baseUrl, account.apiKey);
  const other = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { name: `Not ${name}` })).apiKey);
  await connectStripe(api, keys);
  return {
    app,
    localstripe,
    accountId: account.accountId,
    api,
    other,
    stripe: stripeAt(localstripe, keys.secretKey),
    async close() {
      process.env.STRIPE_API_BASE = apiBaseBefore;
      await app.close();
      await localstripe.stop();
    },
  };
}

/** An account connected to Stripe with a webhook secret of its own, and the path Stripe posts its events to. */
export interface WebhookConnectedAccount {
  accountId: string;
  api: ApiClient;
  /** The path of its `webhook_url` (which is under PUBLIC_URL), to post to on the test app. */
  path: string;
  secret: string;
}

/** A new account connected to Stripe through the API with a secret key and webhook secret derived from `name`. */
export async function webhookConnectedAccount(app: TestApp, name: string): Promise<WebhookConnectedAccount> {
  const account = await createTestAccount(app.prisma, { name });
  const api = apiClient(app.baseUrl, account.apiKey);
  const suffix = name.replace(/[^A-Za-z0-9]/g, '');
  const secret = `whsec_${suffix}0123456789`;
  const settings = expectStatus(
    await api.put('/settings/gateway', {
      processor: 'stripe',
      secret_key: `sk_test_${suffix}`,
      webhook_secret: secret,
    }),
    200,
  );
  return { accountId: account.accountId, api, path: new URL(settings.webhook_url).pathname, secret };
}
