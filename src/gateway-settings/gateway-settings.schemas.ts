import { z } from 'zod';

/** The card processors an account can connect (docs/api.md, "Payment processors"). */
export const PROCESSORS = ['stripe'] as const;
export type Processor = (typeof PROCESSORS)[number];

export const gatewaySettingsBody = z
  .strictObject({
    processor: z.enum(PROCESSORS).describe('The card processor: stripe'),
    secret_key: z
      .string()
      .regex(/^sk_(test|live)_[A-Za-z0-9]{1,250}$/, 'must be a Stripe secret key: sk_test_... or sk_live_...')
      .describe(
        'The Stripe secret API key (test or live); stored encrypted, never shown again but its last 4 characters',
      ),
    webhook_secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9]{1,250}$/, 'must be a Stripe webhook signing secret: whsec_...')
      .describe('The signing secret of the Stripe webhook endpoint pointed at webhook_url; stored encrypted'),
    publishable_key: z
      .string()
      .regex(/^pk_(test|live)_[A-Za-z0-9]{1,250}$/, 'must be a Stripe publishable key: pk_test_... or pk_live_...')
      .optional()
      .describe(
        'The Stripe publishable key of the same mode as secret_key: the hosted pages give it to Stripe.js to collect cards (card numbers never reach this service). Without it the hosted pages cannot take a new card',
      ),
  })
  .meta({ id: 'GatewaySettingsUpdate' });

export const gatewaySettingsSchema = z
  .object({
    object: z.literal('gateway_settings'),
    processor: z
      .enum(['simulated', ...PROCESSORS])
      .describe('simulated: no processor connected, payments go through the simulated gateway'),
    livemode: z.boolean().describe('True exactly for a live secret key: test and live objects never mix'),
    secret_key_last4: z.string().nullable().describe("The secret key's last 4 characters; null: none connected"),
    webhook_secret_last4: z.string().nullable().describe("The webhook signing secret's last 4 characters"),
    publishable_key: z
      .string()
      .nullable()
      .describe('The publishable key the hosted pages give to Stripe.js (public by design); null: none given'),
    webhook_url: z
      .string()
      .nullable()
      .describe("The account's own processor-webhook endpoint, to give the processor; null until connected"),
    updated: z.number().int().nullable().describe('When the settings last changed (Unix seconds); null: never'),
  })
  .meta({ id: 'GatewaySettings' });

export type GatewaySettingsInput = z.output<typeof gatewaySettingsBody>;
export type GatewaySettingsObject = z.output<typeof gatewaySettingsSchema>;
