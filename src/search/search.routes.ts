import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { searchQuery, searchResultSchema } from './search.schemas';
import { search } from './search.service';

export function registerSearchRoutes(api: Api, { prisma }: AppDeps): void {
  api.route({
    method: 'get',
    path: '/search',
    tag: 'Search',
    summary: 'Find a customer, subscription, invoice, payment plan or credit note by id, number, name or email',
    description:
      "The dashboard's search box. An id (cus_, sub_, pp_, cn_, an invoice's UUID) or a number (INV-000012, CN-3) answers " +
      "that object when the account has it; any other text answers the customers whose name or email holds it. Another account's " +
      'id finds nothing.',
    query: searchQuery,
    response: searchResultSchema,
    handler: ({ principal, query }) => search(prisma, principal.accountId, query.query),
  });
}
