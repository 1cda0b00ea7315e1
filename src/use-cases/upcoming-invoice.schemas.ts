import { z } from 'zod';
import { queryUnixSeconds, resourceId } from '../http/validation';
import { invoiceSchema } from '../invoices/invoice.schemas';
import { itemChangeInput, MAX_ITEMS, prorationBehavior } from '../subscriptions/subscription.schemas';

/** `items` in a query string: the PATCH body's `items`, as JSON text. */
const itemsText = z
  .string()
  .max(10_000, 'must be at most 10000 characters')
  .transform((raw, ctx) => {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: "is not valid JSON (the PATCH body's items, as JSON text)", input: raw });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(itemChangeInput)
      .min(1, 'must hold at least one change')
      .max(MAX_ITEMS, `may hold at most ${MAX_ITEMS} changes`),
  );

export const upcomingInvoiceQuery = z
  .strictObject({
    subscription: resourceId.describe('The subscription whose next invoice is previewed'),
    items: itemsText
      .optional()
      .describe(
        'A proposed change: PATCH /subscriptions/{id}\'s `items` as JSON text (`[{"id":"si_...","quantity":3}]`); the preview bills as if it were made at proration_date',
      ),
    proration_behavior: prorationBehavior
      .optional()
      .describe("How the proposed change is prorated; the account's setting when absent"),
    proration_date: queryUnixSeconds
      .optional()
      .describe('Unix seconds inside the current period: when the proposed change is made (now when absent)'),
  })
  .superRefine((query, ctx) => {
    if (query.items === undefined && query.proration_behavior !== undefined)
      ctx.addIssue({ code: 'custom', path: ['proration_behavior'], message: 'needs a proposed change (items)' });
    if (query.items === undefined && query.proration_date !== undefined)
      ctx.addIssue({ code: 'custom', path: ['proration_date'], message: 'needs a proposed change (items)' });
  });

export const upcomingInvoiceSchema = invoiceSchema
  .extend({
    id: z.null().describe('Not an invoice yet: nothing is written'),
    number: z.null(),
  })
  .meta({ id: 'UpcomingInvoice' });

export type UpcomingInvoiceQuery = z.output<typeof upcomingInvoiceQuery>;
export type UpcomingInvoiceObject = z.output<typeof upcomingInvoiceSchema>;
