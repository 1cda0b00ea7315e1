import { z } from 'zod';
import { countryCode, countryCodeInput, currencyCode, currencyCodeInput } from '../lib/iso';
import { cursorQuery, paginationQuery } from '../http/pagination';
import { nameText, resourceId, unixTime } from '../http/validation';
import { updatedMsField } from '../lib/object-version';
import { couponField, discountField } from '../coupons/coupon.schemas';

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

export const addressInput = z.strictObject({
  city: text(200).optional(),
  country: countryCodeInput.optional(),
  line1: text(200).optional(),
  line2: text(200).optional(),
  postal_code: text(20).optional(),
  state: text(200).optional(),
});

export const addressSchema = z
  .object({
    city: z.string().optional(),
    country: countryCode.optional(),
    line1: z.string().optional(),
    line2: z.string().optional(),
    postal_code: z.string().optional(),
    state: z.string().optional(),
  })
  .meta({ id: 'Address' });

export const email = z.email('must be a valid email address').max(254);
export const phone = text(40).regex(/^[0-9+()\-. ]*$/, 'may contain only digits, spaces and + ( ) - .');

export const createCustomerBody = z
  .strictObject({
    name: nameText(255),
    email: email.optional(),
    description: text(1000).optional(),
    phone: phone.optional(),
    currency: currencyCodeInput.optional(),
    address: z.array(addressInput).max(10).optional(),
    shipping: z
      .strictObject({
        name: nameText(255),
        phone,
        address: addressInput,
      })
      .optional(),
    test_clock: resourceId
      .optional()
      .describe(
        "Test mode: a clock_ id of the account; the customer's subscriptions and payment plans run on its time (set at creation only)",
      ),
    coupon: couponField.optional(),
  })
  .meta({ id: 'CustomerCreate' });

/** PATCH has its own body shape (spec; decisions.md §4). */
export const updateCustomerBody = z
  .strictObject({
    email: email.optional(),
    name: nameText(255).optional(),
    billingAddress: z
      .strictObject({
        email: email.optional(),
        address1: text(200).optional(),
        address2: text(200).optional(),
        postalCode: text(20).optional(),
        city: text(200).optional(),
        country: countryCodeInput.optional(),
        state: text(200).optional(),
        phone: phone.optional(),
      })
      .optional(),
    shippingAddress: z
      .strictObject({
        shippingAddress1: text(200).optional(),
        shippingAddress2: text(200).optional(),
        shippingPostalCode: text(20).optional(),
        shippingCity: text(200).optional(),
        shippingCountry: countryCodeInput.optional(),
        shippingState: text(200).optional(),
        shippingPhone: phone.optional(),
      })
      .optional(),
    coupon: couponField.optional(),
  })
  .meta({ id: 'CustomerUpdate' });

export const customerSchema = z
  .object({
    id: z.string(),
    object: z.literal('customer'),
    name: z.string(),
    email: z.string().optional().describe('Absent while the customer has none (docs/decisions.md §18)'),
    description: z.string().nullable(),
    phone: z.string().nullable(),
    created: unixTime,
    updated_ms: updatedMsField,
    currency: currencyCode.optional(),
    address: z.array(addressSchema),
    shipping: z
      .object({ name: z.string(), phone: z.string().nullable(), address: addressSchema })
      .optional()
      .describe('Absent while the customer has none'),
    test_clock: z.string().nullable().describe('The test clock the customer runs on, or null'),
    balance: z
      .number()
      .int()
      .max(0)
      .describe(
        "Cents of credit in `balance_currency`, negative (Stripe's sign; never positive): applied to the customer's next invoices " +
          'at finalization, before the card is charged. Changed only by its entries, GET /customers/{id}/balance-transactions (docs/decisions.md §22)',
      ),
    balance_currency: z
      .union([currencyCode, z.null()])
      .describe('The currency of `balance`; null until its first entry'),
    discount: discountField,
  })
  .meta({
    id: 'Customer',
    description:
      '`email`, `currency` and `shipping` are absent while unset; `description` and `phone` are null then (docs/decisions.md §18)',
  });

export const SORTABLE_FIELDS = ['created', 'name', 'email'] as const;

export const listCustomersQuery = z.strictObject({
  search: text(200).optional().describe('Matches name or email, case-insensitively'),
  test_clock: resourceId.optional().describe('Test mode: only the customers on this test clock (clock_...)'),
  ...paginationQuery(100),
  order: z.enum(['ASC', 'DESC']).default('DESC'),
  sortingField: z.enum(SORTABLE_FIELDS).default('created'),
  ...cursorQuery(),
});

export const searchCustomersQuery = z.strictObject({
  search: text(200).describe('Matches name or email, case-insensitively; a customer id (cus_...) finds that customer'),
});

export const customerIdParams = z.strictObject({ externalKey: resourceId });

export type CreateCustomerInput = z.output<typeof createCustomerBody>;
export type UpdateCustomerInput = z.output<typeof updateCustomerBody>;
export type ListCustomersQuery = z.output<typeof listCustomersQuery>;
export type Address = z.output<typeof addressSchema>;
export type CustomerObject = z.output<typeof customerSchema>;
