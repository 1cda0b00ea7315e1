import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { SUPERADMIN_ROLES } from '../http/auth';
import { businessDetailsBody, businessDetailsSchema } from './business-details.schemas';
import { getBusinessDetails, putBusinessDetails } from './business-details.service';

export function registerBusinessDetailsRoutes(api: Api, { prisma }: AppDeps): void {
  const tag = 'Business details';

  api.route({
    method: 'get',
    path: '/settings/business-details',
    tag,
    summary: "The seller's public business details printed on invoices and credit notes (any role)",
    description: 'Every field is null until set. docs/api.md, "Business details".',
    response: businessDetailsSchema,
    handler: ({ principal }) => getBusinessDetails(prisma, principal.accountId),
  });

  api.route({
    method: 'put',
    path: '/settings/business-details',
    tag,
    roles: SUPERADMIN_ROLES,
    summary: 'Set the legal name, address, support email and phone, and tax id shown to customers (superadmin)',
    description:
      'Give any of the fields; what is not given stays, null clears a field. Invoices take them when made and when ' +
      'finalized (account_name, account_country, account_address, account_email, account_phone, account_tax_id) and ' +
      'keep them from then on: an issued invoice, its PDF, credit notes and hosted page never change.',
    body: businessDetailsBody,
    response: businessDetailsSchema,
    handler: ({ principal, body }) => putBusinessDetails(prisma, principal.accountId, body),
  });
}
