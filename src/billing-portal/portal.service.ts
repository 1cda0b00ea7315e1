import type { Db } from '../db/prisma';
import { findCustomer } from '../customers';
import { withParam } from '../invoices';
import { newId } from '../lib/ids';
import { hashPageToken, newPageToken, publicUrl } from '../lib/page-tokens';
import { toUnixSeconds } from '../lib/time';
import { MINUTE_MS } from '../lib/durations';
import type { CreatePortalSessionInput, PortalSessionObject, PortalSettingsObject } from './portal.schemas';
import {
  findPortalSessionByHash,
  insertPortalSession,
  readPortalSettings,
  writePortalSettings,
} from './portal.records';

/** How long a portal session's URL works: it is made when the customer clicks "Manage billing". */
export const PORTAL_SESSION_MINUTES = 60;

/** Path of the portal's page (src/hosted-pages/portal.routes.ts). */
export const PORTAL_PATH = '/hosted/portal';

/**
 * POST /billing-portal/sessions: a short-lived link to the customer's portal (docs/api.md "Hosted
 * pages"). The token is in the answer only; the row keeps its SHA-256 (docs/decisions.md §29).
 */
export async function createPortalSession(
  prisma: Db,
  accountId: string,
  input: CreatePortalSessionInput,
): Promise<PortalSessionObject> {
  const customer = await withParam('customer', () => findCustomer(prisma, accountId, input.customer));
  const token = newPageToken();
  // The link lives in the real world's time (page.ts compares its expiry with the wall clock).
  const createdAt = new Date();
  const session = await insertPortalSession(prisma, {
    id: newId('billingPortalSession'),
    accountId,
    customerId: customer.id,
    tokenHash: hashPageToken(token),
    returnUrl: input.return_url,
    expiresAt: new Date(createdAt.getTime() + PORTAL_SESSION_MINUTES * MINUTE_MS),
    createdAt,
  });
  return {
    id: session.id,
    object: 'billing_portal.session',
    customer: session.customerId,
    return_url: session.returnUrl,
    url: publicUrl(`${PORTAL_PATH}/${token}`),
    created: toUnixSeconds(session.createdAt),
    expires_at: toUnixSeconds(session.expiresAt),
  };
}

/** The session a portal token names (any state), or null. */
export function findPortalSession(prisma: Db, token: string) {
  return findPortalSessionByHash(prisma, hashPageToken(token));
}

export async function getPortalSettings(prisma: Db, accountId: string): Promise<PortalSettingsObject> {
  const settings = await readPortalSettings(prisma, accountId);
  return { object: 'customer_portal_settings', pause_resume: settings.pauseResume };
}

export async function putPortalSettings(
  prisma: Db,
  accountId: string,
  input: { pause_resume: boolean },
): Promise<PortalSettingsObject> {
  await writePortalSettings(prisma, accountId, input.pause_resume);
  return { object: 'customer_portal_settings', pause_resume: input.pause_resume };
}
