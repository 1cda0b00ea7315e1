import type { AppDeps } from '../http/app-deps';
import { Answer, type Api } from '../http/api';
import { ADMIN_ROLES } from '../http/auth';
import { pageSchema } from '../http/pagination';
import { getDunningSettings, putDunningSettings } from './dunning-settings.service';
import { getProrationSettings, putProrationSettings } from './proration-settings.service';
import { creationAnswer } from './subscription.records';
import { changeSubscription } from '../use-cases';
import {
  cancelSubscriptionQuery,
  createSubscriptionBody,
  dunningSettingsBody,
  dunningSettingsSchema,
  emptyBody,
  getSubscriptionQuery,
  listSubscriptionsQuery,
  prorationSettingsBody,
  prorationSettingsSchema,
  subscriptionIdParams,
  subscriptionSchema,
  subscriptionUsageSchema,
  updateSubscriptionBody,
} from './subscription.schemas';
import { subscriptionUsage } from './subscription-usage.service';
import {
  cancelSubscription,
  createSubscription,
  getSubscription,
  listSubscriptions,
  pauseSubscription,
  resumeSubscription,
  subscriptionDepsOf,
} from './subscription.service';

const stateChange =
  'Goes through the subscription workflow; 409 when the state forbids it (subscription_starting: its workflow has not started yet, ask again); 503 with Retry-After when the workflow service does not answer.';

export function registerSubscriptionRoutes(api: Api, appDeps: AppDeps): void {
  const deps = subscriptionDepsOf(appDeps);
  const { prisma } = deps;
  const tag = 'Subscriptions';

  api.route({
    method: 'post',
    path: '/subscriptions',
    tag,
    summary: 'Create a subscription (starts its workflow)',
    description:
      'Status `scheduled` when start_date is in the future, else `trialing` with trial_days, else `active`. ' +
      'A subscription that bills at once answers after its first invoice has been created and charged (201, `latest_invoice` set). ' +
      'When the charge takes longer than 20 s the answer is 202: the subscription exists with its first invoice, still being charged. ' +
      'The workflow service (Temporal) need not answer: the subscription is created and its workflow starts when Temporal answers again; ' +
      'until then changes of it answer 409 subscription_starting.',
    body: createSubscriptionBody,
    status: 201,
    otherStatuses: { 202: 'Created; the first invoice is still being charged' },
    response: subscriptionSchema,
    errors: [404],
    handler: async ({ principal, body, idempotencySeed }) => {
      const created = await createSubscription(deps, principal.accountId, body, { idempotencySeed });
      const subscription = creationAnswer(created.subscription);
      return created.billingPending ? new Answer(202, subscription) : subscription;
    },
  });

  api.route({
    method: 'get',
    path: '/subscriptions',
    tag,
    summary:
      "List subscriptions, newest first (filters: status, customer; a page, or after/before a cursor; include=names adds the customer's and products' names)",
    query: listSubscriptionsQuery,
    response: pageSchema(subscriptionSchema),
    errors: [404],
    handler: ({ principal, query }) => listSubscriptions(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/subscriptions/{id}',
    tag,
    summary: 'Retrieve a subscription',
    params: subscriptionIdParams,
    query: getSubscriptionQuery,
    response: subscriptionSchema,
    errors: [404],
    handler: ({ principal, params, query }) => getSubscription(prisma, principal.accountId, params.id, query),
  });

  api.route({
    method: 'get',
    path: '/subscriptions/{id}/usage',
    tag,
    summary: "Each metered item's usage in the current period, priced, with a daily breakdown",
    description:
      'The usage the next invoice bills in arrears so far: from current_period_start to now (the customer test clock time when on one), ' +
      'per metered item: the meter aggregation, what it costs under the price terms (tiers, packages; before discount and tax), ' +
      'and its value per 24 hours from the period start (docs/api.md, "Usage-based billing").',
    params: subscriptionIdParams,
    response: subscriptionUsageSchema,
    errors: [404],
    handler: ({ principal, params }) => subscriptionUsage(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'patch',
    path: '/subscriptions/{id}',
    tag,
    summary: 'Update items, collection method, payment method, cancel_at, end_date',
    description:
      "Item changes take effect from the next invoice; inside a billed period `proration_behavior` (default: the account's, " +
      'GET /settings/proration) credits the unused time of what was replaced and charges the rest of the period of what replaces it, ' +
      `on the next invoice (create_prorations) or on an invoice charged now (always_invoice). ${stateChange}`,
    params: subscriptionIdParams,
    body: updateSubscriptionBody,
    response: subscriptionSchema,
    errors: [404, 409, 503],
    handler: ({ principal, params, body }) => changeSubscription(deps, principal.accountId, params.id, body),
  });

  api.route({
    method: 'delete',
    path: '/subscriptions/{id}',
    tag,
    summary: 'Cancel a subscription now, or at the end of the current period with ?at_period_end=true',
    description: stateChange,
    params: subscriptionIdParams,
    query: cancelSubscriptionQuery,
    response: subscriptionSchema,
    errors: [404, 409, 503],
    handler: ({ principal, params, query }) =>
      cancelSubscription(deps, principal.accountId, params.id, query.at_period_end ?? false, query.prorate ?? false),
  });

  registerPauseRoutes(api, deps, tag);
  registerSubscriptionSettingsRoutes(api, prisma, tag);
}

/** Pausing and resuming a subscription (through its workflow). */
function registerPauseRoutes(api: Api, deps: ReturnType<typeof subscriptionDepsOf>, tag: string): void {
  api.route({
    method: 'post',
    path: '/subscriptions/{id}/pause',
    tag,
    summary: 'Pause an active subscription: nothing is billed or charged while paused',
    description: stateChange,
    params: subscriptionIdParams,
    body: emptyBody,
    response: subscriptionSchema,
    errors: [404, 409, 503],
    handler: ({ principal, params, idempotencySeed }) =>
      pauseSubscription(deps, principal.accountId, params.id, idempotencySeed),
  });

  api.route({
    method: 'post',
    path: '/subscriptions/{id}/resume',
    tag,
    summary: 'Resume a paused subscription: billing dates move on by the time it was paused',
    description: stateChange,
    params: subscriptionIdParams,
    body: emptyBody,
    response: subscriptionSchema,
    errors: [404, 409, 503],
    handler: ({ principal, params, idempotencySeed }) =>
      resumeSubscription(deps, principal.accountId, params.id, idempotencySeed),
  });
}

/** The account's defaults for changes and failed renewals of its subscriptions. */
function registerSubscriptionSettingsRoutes(api: Api, prisma: AppDeps['prisma'], tag: string): void {
  api.route({
    method: 'get',
    path: '/settings/proration',
    tag,
    roles: ADMIN_ROLES,
    summary: "The account's default proration_behavior for changes of a subscription's items",
    response: prorationSettingsSchema,
    handler: ({ principal }) => getProrationSettings(prisma, principal.accountId),
  });

  api.route({
    method: 'put',
    path: '/settings/proration',
    tag,
    roles: ADMIN_ROLES,
    summary: 'Set the default proration_behavior (create_prorations, always_invoice or none)',
    description: 'Applies to changes made from now on; a PATCH naming proration_behavior uses its own.',
    body: prorationSettingsBody,
    response: prorationSettingsSchema,
    handler: ({ principal, body }) => putProrationSettings(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/settings/dunning',
    tag,
    roles: ADMIN_ROLES,
    summary: "The account's retry schedule and outcome for failed renewal charges",
    response: dunningSettingsSchema,
    handler: ({ principal }) => getDunningSettings(prisma, principal.accountId),
  });

  api.route({
    method: 'put',
    path: '/settings/dunning',
    tag,
    roles: ADMIN_ROLES,
    summary: 'Set the retry schedule (days after the failed charge) and the outcome when retries are exhausted',
    description: 'Applies to renewal charges that fail from now on.',
    body: dunningSettingsBody,
    response: dunningSettingsSchema,
    handler: ({ principal, body }) => putDunningSettings(prisma, principal.accountId, body),
  });
}
