import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import { createMeterBody, listMetersQuery, meterIdParams, meterSchema, updateMeterBody } from './meter.schemas';
import { createMeter, getMeter, listMeters, setMeterStatus, updateMeter } from './meter.service';
import {
  commonUsageEventsBody,
  createUsageEventsBody,
  eventSummariesQuery,
  meterEventSummariesSchema,
  usageEventsAcceptedSchema,
} from './usage-event.schemas';
import { meterEventSummaries } from './usage-event.service';
import { reportUsage } from '../use-cases';

export function registerUsageRoutes(api: Api, { prisma, temporal }: AppDeps): void {
  const tag = 'Usage';

  api.route({
    method: 'post',
    path: '/meters',
    tag,
    summary: 'Create a meter: how the usage events of one event name add up for a customer over a period',
    description:
      '`value_property` for sum, count_unique, max and last, not for count; one meter per `event_name` in an account ' +
      '(409 meter_event_name_taken). Writes billing.meter.created (docs/api.md, "Usage-based billing").',
    body: createMeterBody,
    status: 201,
    response: meterSchema,
    errors: [409],
    handler: ({ principal, body }) => createMeter(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/meters',
    tag,
    summary: 'List the meters, newest first',
    query: listMetersQuery,
    response: pageSchema(meterSchema),
    errors: [404],
    handler: ({ principal, query }) => listMeters(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/meters/{id}',
    tag,
    summary: 'Retrieve a meter',
    params: meterIdParams,
    response: meterSchema,
    errors: [404],
    handler: ({ principal, params }) => getMeter(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'post',
    path: '/meters/{id}',
    tag,
    summary: 'Update a meter: its name; how it aggregates only while no usage event names it (409 meter_has_events)',
    description: 'Writes billing.meter.updated.',
    params: meterIdParams,
    body: updateMeterBody,
    response: meterSchema,
    errors: [404, 409],
    handler: ({ principal, params, body }) => updateMeter(prisma, principal.accountId, params.id, body),
  });

  api.route({
    method: 'post',
    path: '/meters/{id}/deactivate',
    tag,
    summary: 'Deactivate a meter: usage events naming it are refused from now on (409 if already inactive)',
    description: 'Its prices and the usage already sent still bill. Writes billing.meter.deactivated.',
    params: meterIdParams,
    response: meterSchema,
    errors: [404, 409],
    handler: ({ principal, params }) => setMeterStatus(prisma, principal.accountId, params.id, 'inactive'),
  });

  api.route({
    method: 'post',
    path: '/meters/{id}/reactivate',
    tag,
    summary: 'Reactivate a meter (409 if already active)',
    description: 'Writes billing.meter.reactivated.',
    params: meterIdParams,
    response: meterSchema,
    errors: [404, 409],
    handler: ({ principal, params }) => setMeterStatus(prisma, principal.accountId, params.id, 'active'),
  });

  api.route({
    method: 'get',
    path: '/meters/{id}/event-summaries',
    tag,
    summary: "A customer's usage of a meter over [start_time, end_time), whole or per UTC day",
    params: meterIdParams,
    query: eventSummariesQuery,
    response: meterEventSummariesSchema,
    errors: [404],
    handler: ({ principal, params, query }) => meterEventSummaries(prisma, principal.accountId, params.id, query),
  });

  api.route({
    method: 'post',
    path: '/usage-events',
    tag,
    summary: 'Send up to 1,000 usage events; 202 once they are written',
    description:
      "Each event's `id` is the merchant's: an id sent again is accepted and counted once. The batch is refused whole " +
      'at its first bad event (400 or 404 naming `events.<n>.<field>`; nothing is written): an event name without an ' +
      "active meter, the meter's property missing or not an integer, another account's customer, a timestamp in the " +
      'future or before the customer\'s oldest open period (docs/api.md, "Usage-based billing").',
    body: createUsageEventsBody,
    bodyCommonShape: commonUsageEventsBody,
    status: 202,
    response: usageEventsAcceptedSchema,
    errors: [404],
    handler: ({ principal, body }) => reportUsage({ prisma, temporal }, principal.accountId, body),
  });
}
