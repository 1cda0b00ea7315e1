import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { notFound } from '../http/errors';
import { customerIdParams } from '../customers';
import { askWorkflows, buildCustomerReport } from './customer-lookup';
import { customerActivity, findCustomerById } from './customer-lookup.records';
import { customerReportSchema } from './customer-report.schemas';

/** How long the report waits for each workflow's state query before it reads the database alone for it. */
const WORKFLOW_ANSWER_MS = 2_000;

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
    handler: async ({ principal, params }) => {
      const [customer] = await findCustomerById(prisma, params.externalKey, principal.accountId);
      if (!customer || customer.deletedAt) throw notFound('customer', params.externalKey, 'externalKey');
      const activity = await customerActivity(prisma, customer);
      const answers = await askWorkflows(temporal, [activity], WORKFLOW_ANSWER_MS);
      return buildCustomerReport(customer, activity, answers);
    },
  });
}
