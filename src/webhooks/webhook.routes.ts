import { z } from 'zod';
import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { ADMIN_ROLES } from '../http/auth';
import { pageSchema } from '../http/pagination';
import { listDeliveryLogs } from './delivery-log.service';
import { resendDelivery } from './delivery-resend.service';
import { config } from '../config';
import {
  createDestination,
  deleteDestination,
  listDestinations,
  rollDestinationSecret,
  setDestinationActive,
  updateDestination,
} from './destination.service';
import {
  createdDestinationSchema,
  deliveryLogSchema,
  destinationBody,
  deliveryIdParams,
  destinationIdParams,
  destinationSchema,
  logsQuery,
} from './webhook.schemas';
import { registerWebhookEvents } from './event-catalog';

export function registerWebhookRoutes(api: Api, deps: AppDeps): void {
  const { prisma } = deps;
  const tag = 'Webhooks';
  const roles = ADMIN_ROLES;
  registerWebhookEvents(api.registry);

  api.route({
    method: 'post',
    path: '/webhook/destination',
    tag,
    roles,
    summary: 'Create a webhook destination (active at once); the signing secret is returned only here',
    body: destinationBody,
    status: 201,
    response: createdDestinationSchema,
    handler: ({ principal, body }) => createDestination(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/webhook/destination',
    tag,
    roles,
    summary: "List the account's webhook destinations",
    response: z.array(destinationSchema),
    handler: ({ principal }) => listDestinations(prisma, principal.accountId),
  });

  api.route({
    method: 'put',
    path: '/webhook/destination/{id}',
    tag,
    roles,
    summary: "Change a destination's URL (retries in flight use the new URL)",
    params: destinationIdParams,
    body: destinationBody,
    response: destinationSchema,
    errors: [404],
    handler: ({ principal, params, body }) => updateDestination(prisma, principal.accountId, params.id, body),
  });

  api.route({
    method: 'post',
    path: '/webhook/destination/{id}/roll-secret',
    tag,
    roles,
    summary: 'Replace the signing secret (returned only here); the old one also signs (a second v1=) for 24 h',
    params: destinationIdParams,
    response: createdDestinationSchema,
    errors: [404],
    handler: ({ principal, params }) => rollDestinationSecret(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'patch',
    path: '/webhook/destination/{id}/enable',
    tag,
    roles,
    summary: 'Enable a destination: events dispatched from now on go to it',
    params: destinationIdParams,
    response: destinationSchema,
    errors: [404],
    handler: ({ principal, params }) => setDestinationActive(prisma, principal.accountId, params.id, true),
  });

  api.route({
    method: 'patch',
    path: '/webhook/destination/{id}/disable',
    tag,
    roles,
    summary: 'Disable a destination: no new deliveries, and its pending retries end as failure',
    params: destinationIdParams,
    response: destinationSchema,
    errors: [404],
    handler: ({ principal, params }) => setDestinationActive(prisma, principal.accountId, params.id, false),
  });

  api.route({
    method: 'delete',
    path: '/webhook/destination/{id}',
    tag,
    roles,
    summary: 'Delete a destination: no new deliveries, its pending retries end as failure, its log stays',
    params: destinationIdParams,
    response: z.object({ id: z.string(), object: z.literal('webhook_destination'), deleted: z.literal(true) }),
    errors: [404],
    handler: ({ principal, params }) => deleteDestination(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'get',
    path: '/webhook/logs',
    tag,
    roles,
    summary: 'Delivery log, newest first: event, payload, status, status code and every attempt',
    query: logsQuery,
    response: pageSchema(deliveryLogSchema),
    errors: [404],
    handler: ({ principal, query }) => listDeliveryLogs(prisma, principal.accountId, query),
  });

  api.route({
    method: 'post',
    path: '/webhook/logs/{id}/resend',
    tag,
    roles,
    summary: 'Deliver the logged event again to the same destination: a new delivery (same envelope), its own attempts',
    description:
      'Answers the new delivery (`resend` numbers it). 409 `delivery_in_progress` while a delivery of the event to ' +
      'the destination is pending or retrying, 409 `destination_disabled` when the destination is disabled or ' +
      'deleted. Send an Idempotency-Key so that a retried request resends once.',
    params: deliveryIdParams,
    status: 202,
    response: deliveryLogSchema,
    errors: [404, 409],
    handler: ({ principal, params }) =>
      resendDelivery({ ...deps, taskQueue: deps.taskQueue ?? config.taskQueue }, principal.accountId, params.id),
  });
}
