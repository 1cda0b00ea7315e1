import { z } from 'zod';
import { nameText } from '../http/validation';
import { addressInput, addressSchema, email, phone } from '../customers/customer.schemas';

/**
 * The seller's public business details (docs/api.md, "Business details"): what invoices, credit notes, the
 * hosted invoice page and the invoice email show of who issues them.
 */
export const businessDetailsBody = z
  .strictObject({
    legal_name: z
      .union([nameText(200), z.null()])
      .optional()
      .describe("The business's legal name, shown as the invoice's account_name; null: the account's name"),
    address: z
      .union([addressInput, z.null()])
      .optional()
      .describe("The business's address; its country is the invoice's account_country"),
    support_email: z.union([email, z.null()]).optional().describe('Where customers write about their invoices'),
    support_phone: z
      .union([phone.min(1, 'must not be empty'), z.null()])
      .optional()
      .describe('Where customers call about their invoices'),
    tax_id: z
      .union([nameText(50), z.null()])
      .optional()
      .describe('The tax number printed on invoices (a VAT number, an EIN...), as written'),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'give legal_name, address, support_email, support_phone or tax_id',
    path: ['legal_name'],
  })
  .openapi('BusinessDetailsUpdate', { minProperties: 1 });

export const businessDetailsSchema = z
  .object({
    object: z.literal('business_details'),
    legal_name: z.string().nullable(),
    address: z.union([addressSchema, z.null()]),
    support_email: z.string().nullable(),
    support_phone: z.string().nullable(),
    tax_id: z.string().nullable(),
  })
  .meta({ id: 'BusinessDetails' });

export type BusinessDetailsInput = z.output<typeof businessDetailsBody>;
export type BusinessDetailsObject = z.output<typeof businessDetailsSchema>;
