import { z } from 'zod';
import { cursorQuery, paginationQuery } from '../http/pagination';
import { nameText, resourceId, unixTime } from '../http/validation';

/** How a meter adds up a customer's events over a period (docs/api.md, "Usage-based billing"). */
export const METER_AGGREGATIONS = ['sum', 'count', 'count_unique', 'max', 'last'] as const;
export type MeterAggregation = (typeof METER_AGGREGATIONS)[number];
export const METER_STATUSES = ['active', 'inactive'] as const;

/** Event names and property names: what Stripe's meters take, letters, digits and `_ . : -`. */
export const EVENT_NAME = /^[A-Za-z0-9_.:-]+$/;
export const MAX_EVENT_NAME_LENGTH = 100;
export const eventName = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_EVENT_NAME_LENGTH, `must be at most ${MAX_EVENT_NAME_LENGTH} characters`)
  .regex(EVENT_NAME, 'may hold letters, digits and _ . : - only');
export const propertyName = z
  .string()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(EVENT_NAME, 'may hold letters, digits and _ . : - only');

/** value_property is required by every aggregation but count, which counts events and reads no property. */
function checkValueProperty(
  body: { aggregation?: MeterAggregation; value_property?: string | null },
  ctx: z.RefinementCtx,
): void {
  if (body.aggregation === undefined) return;
  const given = body.value_property !== undefined && body.value_property !== null;
  if (body.aggregation === 'count' && given)
    ctx.addIssue({
      code: 'custom',
      path: ['value_property'],
      message: 'goes with sum, count_unique, max and last only',
    });
  if (body.aggregation !== 'count' && !given)
    ctx.addIssue({
      code: 'custom',
      path: ['value_property'],
      message: `is required with aggregation ${body.aggregation}`,
    });
}

export const createMeterBody = z
  .strictObject({
    name: nameText(100).describe('Shown on invoices and in the dashboard'),
    event_name: eventName.describe(
      'The usage events it counts (their `event_name`); one meter per event name in an account (409 otherwise)',
    ),
    aggregation: z
      .enum(METER_AGGREGATIONS)
      .describe(
        'sum, max or last of value_property; count of the events; count_unique of the distinct values of value_property',
      ),
    value_property: propertyName
      .optional()
      .describe(
        "The property of an event's `properties` aggregated (count_unique: whose distinct values count); not with count",
      ),
  })
  .superRefine(checkValueProperty)
  .meta({ id: 'MeterCreate' });

export const updateMeterBody = z
  .strictObject({
    name: nameText(100).optional(),
    aggregation: z
      .enum(METER_AGGREGATIONS)
      .optional()
      .describe('Only while no usage event names the meter (409 meter_has_events otherwise); with value_property'),
    value_property: propertyName
      .nullable()
      .optional()
      .describe('Only while no usage event names the meter (409 meter_has_events otherwise)'),
  })
  .superRefine((body, ctx) => {
    if (body.value_property !== undefined && body.aggregation === undefined)
      ctx.addIssue({ code: 'custom', path: ['aggregation'], message: 'is required with value_property' });
    checkValueProperty(body, ctx);
  })
  .meta({ id: 'MeterUpdate' });

export const meterSchema = z
  .object({
    id: z.string().describe('mtr_...'),
    object: z.literal('billing.meter'),
    name: z.string(),
    event_name: z.string(),
    aggregation: z.enum(METER_AGGREGATIONS),
    value_property: z.string().nullable(),
    status: z.enum(METER_STATUSES).describe('inactive: usage events naming it are refused; its prices still bill'),
    created: unixTime,
    updated: z.number().nullable(),
  })
  .meta({ id: 'Meter' });

export const meterIdParams = z.strictObject({ id: resourceId });

export const listMetersQuery = z.strictObject({
  status: z.enum(METER_STATUSES).optional().describe('Only the meters of this status'),
  ...paginationQuery(100),
  ...cursorQuery(),
});

export type CreateMeterInput = z.output<typeof createMeterBody>;
export type UpdateMeterInput = z.output<typeof updateMeterBody>;
export type MeterObject = z.output<typeof meterSchema>;
export type ListMetersQuery = z.output<typeof listMetersQuery>;
