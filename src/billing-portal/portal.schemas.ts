import { z } from 'zod';
import { resourceId, unixTime } from '../http/validation';

/**
 * A URL customers' browsers are sent back to (return_url, success_url, cancel_url): http or https,
 * absolute, without credentials. It is only ever a link the customer follows, never fetched here.
 */
export const returnUrl = z
  .string()
  .max(2000, 'must be at most 2000 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
    } catch {
      return false;
    }
  }, 'must be an absolute http or https URL without credentials')
  .describe('An absolute http(s) URL');

export const createPortalSessionBody = z
  .strictObject({
    customer: resourceId.describe('The customer the portal is for (cus_)'),
    return_url: returnUrl.describe("Where the portal's link back to the merchant's site leads"),
  })
  .meta({ id: 'BillingPortalSessionCreate' });

export const portalSessionSchema = z
  .object({
    id: z.string().describe('bps_...'),
    object: z.literal('billing_portal.session'),
    customer: z.string(),
    return_url: z.string(),
    url: z
      .string()
      .describe(
        'The portal for this customer, under PUBLIC_URL; hand it to the customer at once, it is shown only here',
      ),
    created: unixTime,
    expires_at: unixTime.describe('Unix seconds; the URL answers a 410 page after it'),
  })
  .meta({ id: 'BillingPortalSession' });

export const portalSettingsBody = z
  .strictObject({
    pause_resume: z.boolean().describe('Whether customers may pause and resume their subscriptions in the portal'),
  })
  .meta({ id: 'CustomerPortalSettingsInput' });

export const portalSettingsSchema = z
  .object({ object: z.literal('customer_portal_settings'), pause_resume: z.boolean() })
  .meta({ id: 'CustomerPortalSettings' });

export type CreatePortalSessionInput = z.output<typeof createPortalSessionBody>;
export type PortalSessionObject = z.output<typeof portalSessionSchema>;
export type PortalSettingsObject = z.output<typeof portalSettingsSchema>;
