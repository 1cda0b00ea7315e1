import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import { eventIdParams, eventSchema, listEventsQuery } from './event.schemas';
import { getEvent, listEvents } from './event.service';

/** The events the account's changes wrote (the webhook outbox), readable with any role: docs/decisions.md §26. */
export function registerEventRoutes(api: Api, { prisma }: AppDeps): void {
  api.route({
    method: 'get',
    path: '/events',
    tag: 'Events',
    summary: "The account's events, newest first",
    description:
      'Filters: type (`invoice.finalized`, or a group `invoice.*`), object (the id in the data), customer ' +
      '(its own events and those of its subscriptions, invoices, payment methods and payment plans), ' +
      'created_gt/created_gte/created_lt/created_lte (Unix seconds). Pages by page/take, or by starting_after/ending_before ' +
      '(an event id; 404 naming the parameter for an id the account does not have).',
    query: listEventsQuery,
    response: pageSchema(eventSchema),
    errors: [404],
    handler: ({ principal, query }) => listEvents(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/events/{id}',
    tag: 'Events',
    summary: 'One event, with the data its webhook deliveries carry',
    params: eventIdParams,
    response: eventSchema,
    errors: [404],
    handler: ({ principal, params }) => getEvent(prisma, principal.accountId, params.id),
  });
}
