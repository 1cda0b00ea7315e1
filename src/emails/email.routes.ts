import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import { getEmail, listAccountEmails } from './email-list.service';
import { emailIdParams, emailSchema, listEmailsQuery } from './email.schemas';

/** The emails sent to the account's customers, with their status (docs/api.md, "Emails"). */
export function registerEmailRoutes(api: Api, { prisma }: AppDeps): void {
  const tag = 'Emails';
  api.route({
    method: 'get',
    path: '/emails',
    tag,
    summary: "List the emails sent to the account's customers, newest first",
    description:
      "Filters: `invoice` (an invoice's timeline), `customer` (a customer's). Each email's status: queued until the SMTP " +
      'server accepted it, then sent; failed when it refused it for good or every retry failed. Pages by page/take, or ' +
      'after/before an email of the list with starting_after/ending_before (404 naming the parameter for an unknown id).',
    query: listEmailsQuery,
    response: pageSchema(emailSchema),
    errors: [404],
    handler: ({ principal, query }) => listAccountEmails(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/emails/{id}',
    tag,
    summary: 'Retrieve an email sent to a customer',
    params: emailIdParams,
    response: emailSchema,
    errors: [404],
    handler: ({ principal, params }) => getEmail(prisma, principal.accountId, params.id),
  });
}
