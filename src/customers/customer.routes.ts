import { z } from 'zod';
import { deleteCustomer } from '../use-cases';
import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import {
  createCustomerBody,
  customerIdParams,
  customerSchema,
  listCustomersQuery,
  searchCustomersQuery,
  updateCustomerBody,
} from './customer.schemas';
import {
  createCustomer,
  getCustomer,
  listCustomers,
  searchCustomers,
  SEARCH_RESULT_LIMIT,
  updateCustomer,
} from './customer.service';

export function registerCustomerRoutes(api: Api, { prisma, gateways }: AppDeps): void {
  const tag = 'Customers';

  api.route({
    method: 'post',
    path: '/customers',
    tag,
    summary: 'Create a customer',
    body: createCustomerBody,
    status: 201,
    response: customerSchema,
    errors: [404],
    handler: ({ principal, body }) => createCustomer(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/customers',
    tag,
    summary: 'List customers (a bare array, as the spec says)',
    query: listCustomersQuery,
    response: z.array(customerSchema),
    errors: [404],
    handler: ({ principal, query }) => listCustomers(prisma, principal.accountId, query),
  });

  // Declared before /customers/{externalKey} so that "search" is not taken for a customer id.
  api.route({
    method: 'get',
    path: '/customers/search',
    tag,
    summary: `Search customers by name or email (at most ${SEARCH_RESULT_LIMIT} results)`,
    query: searchCustomersQuery,
    response: z.array(z.object({ id: z.string(), name: z.string(), email: z.string().optional() })),
    handler: ({ principal, query }) => searchCustomers(prisma, principal.accountId, query.search),
  });

  api.route({
    method: 'get',
    path: '/customers/{externalKey}',
    tag,
    summary: 'Retrieve a customer',
    params: customerIdParams,
    response: customerSchema,
    errors: [404],
    handler: ({ principal, params }) => getCustomer(prisma, principal.accountId, params.externalKey),
  });

  api.route({
    method: 'patch',
    path: '/customers/{externalKey}',
    tag,
    summary: 'Update a customer (billingAddress fills address[0]; shippingAddress fills shipping)',
    params: customerIdParams,
    body: updateCustomerBody,
    response: customerSchema,
    errors: [404],
    handler: ({ principal, params, body }) => updateCustomer(prisma, principal.accountId, params.externalKey, body),
  });

  api.route({
    method: 'delete',
    path: '/customers/{externalKey}',
    tag,
    summary: 'Delete a customer',
    description:
      'Refused (409) while the customer has a subscription or payment plan running, or an open invoice. Draft invoices are ' +
      'voided and every payment method is detached, with their events, in the same transaction.',
    params: customerIdParams,
    response: z.object({ id: z.string(), object: z.literal('customer'), deleted: z.literal(true) }),
    errors: [404, 409],
    handler: ({ principal, params }) => deleteCustomer(prisma, gateways, principal.accountId, params.externalKey),
  });
}
