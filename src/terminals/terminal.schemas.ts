import { z } from 'zod';
import { paginationQuery } from '../http/pagination';
import { resourceId, unixTime } from '../http/validation';
import { passesLuhn } from '../payments/payment-method.schemas';
import { currencyCode } from '../lib/iso';

export const createTerminalBody = z
  .strictObject({
    label: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters')
      .describe('Where the terminal is, e.g. "Front desk"'),
    registration_code: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters')
      .optional()
      .describe(
        "On an account connected to Stripe: the code the reader shows, to register it (in test mode Stripe's simulated reader is registered when absent); ignored otherwise",
      ),
  })
  .meta({ id: 'TerminalCreate' });

export const terminalIdParams = z.strictObject({ id: resourceId });
export const listTerminalsQuery = z.strictObject(paginationQuery(100));

export const terminalSchema = z
  .object({
    id: z.string(),
    object: z.literal('terminal'),
    label: z.string(),
    status: z.enum(['idle', 'busy']).describe('busy while a sale waits for the customer'),
    current_sale: z
      .object({
        id: z.string(),
        payment: z.string(),
        amount: z.number(),
        currency: currencyCode,
        cancel_requested: z.boolean(),
        created: unixTime,
      })
      .nullable(),
    created: unixTime,
  })
  .meta({ id: 'Terminal' });

const cardNumber = z
  .string()
  .transform((value) => value.replace(/[ -]/g, ''))
  .pipe(
    z
      .string()
      .regex(/^\d{12,19}$/, 'must be 12 to 19 digits')
      .refine(passesLuhn, 'is not a valid card number (Luhn check failed)'),
  );

export const presentCardBody = z
  .strictObject({
    outcome: z
      .enum(['approved', 'declined', 'approved_no_credential', 'lost'])
      .describe(
        'approved: paid, card saved; approved_no_credential: paid, no card kept; declined; lost: the outcome never reaches the service',
      ),
    processor_outcome: z
      .enum(['approved', 'declined', 'unknown'])
      .optional()
      .describe(
        "With outcome lost: what the terminal's processor recorded for the sale (default approved; unknown: it has no record), answered when the service asks for it",
      ),
    card: z
      .strictObject({
        number: cardNumber,
        exp_month: z.number().int().min(1).max(12).optional(),
        exp_year: z.number().int().min(2000).max(2100).optional(),
      })
      .optional()
      .describe(
        'The card presented (default 4242424242424242); its test number decides how later automatic charges of a saved card go',
      ),
  })
  .meta({ id: 'TerminalPresentCard' });

export type CreateTerminalInput = z.output<typeof createTerminalBody>;
export type TerminalObject = z.output<typeof terminalSchema>;
export type PresentCardInput = z.output<typeof presentCardBody>;
