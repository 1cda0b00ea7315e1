import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { ADMIN_ROLES } from '../http/auth';
import {
  createPortalSessionBody,
  portalSessionSchema,
  portalSettingsBody,
  portalSettingsSchema,
} from './portal.schemas';
import { createPortalSession, getPortalSettings, putPortalSettings } from './portal.service';

export function registerPortalRoutes(api: Api, { prisma }: AppDeps): void {
  const tag = 'Customer portal';

  api.route({
    method: 'post',
    path: '/billing-portal/sessions',
    tag,
    summary: "A short-lived link to a customer's billing portal",
    description:
      'The customer sees their subscriptions (cancel at period end, asked first, and keep one set to cancel; pause and ' +
      'resume when the account allows it), invoices ' +
      '(open ones paid on their hosted page) and cards (add, make default, remove, asked first). `url` works for 60 minutes and is shown ' +
      "only in this answer. Another account's customer: 404.",
    body: createPortalSessionBody,
    status: 201,
    response: portalSessionSchema,
    errors: [404],
    handler: ({ principal, body }) => createPortalSession(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/settings/customer-portal',
    tag,
    roles: ADMIN_ROLES,
    summary: 'What customers may do in the portal beyond the defaults',
    response: portalSettingsSchema,
    handler: ({ principal }) => getPortalSettings(prisma, principal.accountId),
  });

  api.route({
    method: 'put',
    path: '/settings/customer-portal',
    tag,
    roles: ADMIN_ROLES,
    summary: 'Let customers pause and resume their subscriptions in the portal, or not (the default)',
    body: portalSettingsBody,
    response: portalSettingsSchema,
    handler: ({ principal, body }) => putPortalSettings(prisma, principal.accountId, body),
  });
}
