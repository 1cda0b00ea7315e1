import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { customerIdParams } from '../customers';
import { customerReportSchema } from './customer-report.schemas';
import { customerBillingReport } from './customer-report.service';

/**
 * "Why was this customer charged, or not?" over HTTP: the report `npm run support -- customer` prints
 * (docs/operations.md), for the dashboard's customer page and for merchants' own support tools.
 */
export function registerCustomerReportRoutes(api: Api, { prisma, temporal }: AppDeps): void {
  api.route({
    method: 'get',
    path: '/customers/{externalKey}/billing-report',
    tag: 'Customers',
    summary:
      'Why this customer was charged, or not: subscriptions, plans, the last invoices and charges, what comes next',
    description:
      'A summary in plain words, then each section; live workflows are asked for their state (2 s each), the database answers otherwise. Times are ISO 8601 in UTC.',
    params: customerIdParams,
    response: customerReportSchema,
    errors: [404],
    handler: ({ principal, params }) =>
      customerBillingReport({ prisma, temporal }, principal.accountId, params.externalKey),
  });
}
