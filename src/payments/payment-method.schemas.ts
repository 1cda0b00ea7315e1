import { z } from 'zod';
import { addressInput } from '../customers/customer.schemas';
import { paginationQuery } from '../http/pagination';
import { resourceId, unixTime } from '../http/validation';
import { isValidRoutingNumber, passesLuhn } from './card-numbers';
import { updatedMsField } from '../lib/object-version';
import { countryCode } from '../lib/iso';

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

/**
 * pm_... (card_processor accounts; Stripe's own ids, and its test ids such as `pm_card_visa`, on accounts
 * connected to Stripe) or a UUID (bank_processor accounts).
 */
export const paymentMethodId = z
  .string()
  .max(64)
  .regex(
    /^(pm_[a-zA-Z0-9_]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/,
    'must be a pm_ id or a UUID',
  )
  .transform((id) => (id.startsWith('pm_') ? id : id.toLowerCase()));

const billingDetailsInput = z.strictObject({
  name: text(255).min(1, 'must not be empty'),
  email: z.email('must be a valid email address').max(254).optional(),
  phone: text(40)
    .regex(/^[0-9+()\-. ]*$/, 'may contain only digits, spaces and + ( ) - .')
    .optional(),
  address: addressInput.optional(),
});

const metadataInput = z
  .record(z.string().min(1).max(40), text(500))
  .refine((value) => Object.keys(value).length <= 50, 'may hold at most 50 keys');

// Messages never echo the number: zod issues and our refinements only describe what is wrong.
const cardNumber = z
  .string()
  // The pattern states in the document what it can: 12 to 19 digits, spaces and dashes anywhere; the Luhn check it cannot.
  .regex(/^[ -]*(?:[0-9][ -]*){12,19}$/, 'must be 12 to 19 digits (spaces and dashes allowed)')
  .describe('12 to 19 digits (spaces and dashes are ignored) that pass the Luhn check')
  .transform((value) => value.replace(/[ -]/g, ''))
  .pipe(
    z
      .string()
      .regex(/^\d{12,19}$/, 'must be 12 to 19 digits')
      .refine(passesLuhn, 'is not a valid card number (Luhn check failed)'),
  );

const cardInput = z
  .strictObject({
    number: cardNumber,
    exp_month: z
      .number()
      .int('must be an integer')
      .min(1, 'must be 1 to 12')
      .max(12, 'must be 1 to 12')
      .describe('With exp_year, not in the past: a card is valid through its expiry month (UTC)'),
    exp_year: z
      .number()
      .int('must be an integer')
      .min(2000, 'must be a four-digit year')
      .max(2100, 'must be a four-digit year')
      .describe('Not before the current year (UTC); with exp_month, not expired'),
    cvc: z.string().regex(/^\d{3,4}$/, 'must be 3 or 4 digits'),
  })
  .superRefine((card, ctx) => {
    const now = new Date(); // a card expires in the real world, not on a test clock
    const [year, month] = [now.getUTCFullYear(), now.getUTCMonth() + 1];
    // A card is valid through the last day of its expiry month.
    if (card.exp_year < year) ctx.addIssue({ code: 'custom', path: ['exp_year'], message: 'the card has expired' });
    else if (card.exp_year === year && card.exp_month < month) {
      ctx.addIssue({ code: 'custom', path: ['exp_month'], message: 'the card has expired' });
    }
  });

const bankAccountInput = z.strictObject({
  account_number: z.string().regex(/^\d{4,17}$/, 'must be 4 to 17 digits'),
  routing_number: z
    .string()
    .regex(/^\d{9}$/, 'must be a 9-digit ABA routing number with a valid checksum')
    .refine(isValidRoutingNumber, 'must be a 9-digit ABA routing number with a valid checksum')
    .describe('9 digits whose ABA checksum (3-7-1 weights) is a multiple of 10, e.g. 110000000'),
  account_holder_type: z.enum(['individual', 'company']),
  account_type: z.enum(['checking', 'savings']).default('checking'),
});

const common = {
  billing_details: billingDetailsInput,
  customer: resourceId.optional().describe('Attach to this customer at once'),
  metadata: metadataInput.optional(),
  allow_redisplay: z.enum(['always', 'limited', 'unspecified']).optional(),
};

export const createPaymentMethodBody = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('card'), card: cardInput, ...common }),
    z.strictObject({ type: z.literal('us_bank_account'), us_bank_account: bankAccountInput, ...common }),
  ])
  .meta({
    id: 'PaymentMethodCreate',
    description:
      'Test mode only. The full number and CVC are never stored or returned. Test cards: 4242424242424242 succeeds, ' +
      '4000000000000002 card_declined, 4000000000009995 insufficient_funds, 4000000000000119 processing_error (retryable). ' +
      'Test bank accounts (routing 110000000): 000123456789 succeeds, 000111111116 account_closed, 000222222227 insufficient_funds.',
  });

export const attachPaymentMethodBody = z
  .strictObject({
    customer: resourceId,
    default: z.boolean().optional().describe("true makes it the customer's default payment method"),
  })
  .meta({ id: 'PaymentMethodAttach' });

export const paymentMethodIdParams = z.strictObject({ id: paymentMethodId });

export const listPaymentMethodsQuery = z.strictObject({
  ...paginationQuery(100),
  customer: resourceId.optional(),
  type: z.enum(['card', 'us_bank_account']).optional(),
});

export const customerPaymentMethodsQuery = z.strictObject(paginationQuery(100));

const nullableString = z.string().nullable();

export const paymentMethodSchema = z
  .object({
    id: z.string(),
    object: z.literal('payment_method'),
    type: z.string(),
    card: z
      .object({
        brand: nullableString,
        last4: nullableString,
        walletType: nullableString,
        exp_month: z.number(),
        exp_year: z.number(),
        fingerprint: z.string(),
      })
      .optional(),
    us_bank_account: z
      .object({
        account_holder_type: z.string(),
        account_type: z.string(),
        bank_name: z.string(),
        financial_connections_account: nullableString,
        fingerprint: z.string(),
        last4: z.string(),
        networks: z.object({ preferred: z.string(), supported: z.array(z.string()) }),
        routing_number: z.string(),
        status_details: z.object({}).passthrough(),
      })
      .optional(),
    allow_redisplay: z.string(),
    billing_details: z.object({
      address: z.object({
        city: nullableString,
        country: z.union([countryCode, z.null()]),
        line1: nullableString,
        line2: nullableString,
        postal_code: nullableString,
        state: nullableString,
      }),
      email: nullableString,
      name: nullableString,
      phone: nullableString,
    }),
    created: unixTime,
    updated_ms: updatedMsField,
    customer: nullableString,
    livemode: z.boolean(),
    metadata: z.record(z.string(), z.string()),
  })
  .meta({ id: 'PaymentMethod' });

export type CreatePaymentMethodInput = z.output<typeof createPaymentMethodBody>;
export type AttachPaymentMethodInput = z.output<typeof attachPaymentMethodBody>;
export type ListPaymentMethodsQuery = z.output<typeof listPaymentMethodsQuery>;
export type PaymentMethodObject = z.output<typeof paymentMethodSchema>;
export type BillingDetails = PaymentMethodObject['billing_details'];

/** The Luhn check of a card number, for the terminals' schemas (a schemas file reads another's schemas file only). */
export { passesLuhn };
