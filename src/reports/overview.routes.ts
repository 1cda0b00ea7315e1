import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { overviewSchema } from './overview.schemas';
import { getOverview } from './overview.service';

export function registerReportRoutes(api: Api, { prisma }: AppDeps): void {
  api.route({
    method: 'get',
    path: '/reports/overview',
    tag: 'Reports',
    summary:
      "The account's figures per currency: MRR, active subscriptions, 30 days of revenue, failed payments, open and past-due invoices, past-due payment plans",
    description:
      "Read by the dashboard's home screen. MRR normalises each item to a month (year /12, week x52/12, day x365/12, divided by interval_count) and rounds it half up to the cent; revenue is succeeded payments minus succeeded refunds by UTC day.",
    response: overviewSchema,
    handler: ({ principal }) => getOverview(prisma, principal.accountId),
  });
}
