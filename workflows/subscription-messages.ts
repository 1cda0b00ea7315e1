import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { EVENT_ORIGINS, type EventOrigin } from '../src/lib/event-origin';
import {
  COLLECTION_METHODS,
  type Action,
  type SubscriptionChanges,
  type SubscriptionCreateSpec,
  type SubscriptionState,
} from '../src/subscriptions/subscription-machine';
import type { SubscriptionObject } from '../src/subscriptions/subscription.schemas';
import { PRORATION_BEHAVIORS } from '../src/subscriptions/proration';
import type { ChargeReceipt } from '../src/transactions/charge-receipt';
import type { ReminderEmailKind } from '../src/emails/email.schemas';
import type { TestClockBinding, TestClockCarry } from './test-clock-contract';

/**
 * The subscription workflow's interface, shared by the workflow and its callers (the API, tests,
 * operators): workflow id, input, the `state` query and the updates that change a subscription.
 */
export const SUBSCRIPTION_WORKFLOW_TYPE = 'subscriptionWorkflow';

export function subscriptionWorkflowId(subscriptionId: string): string {
  return `subscription:${subscriptionId}`;
}

/**
 * A subscription the API created and persisted (`created`, version 1 or more: the row, its event and
 * a first invoice due at once are written; decisions.md §14), the state carried over by
 * continue-as-new, or (runs started before the API wrote the row) a spec the workflow writes itself.
 */
export type SubscriptionWorkflowInput = (
  { created: SubscriptionState } | { continued: SubscriptionState } | { create: SubscriptionCreateSpec }
) & {
  /** A subscription of a customer on a test clock runs on the clock's time (workflows/clock.ts). */
  testClock?: TestClockBinding | TestClockCarry;
  /**
   * The API's charge of the first invoice, when it paid it and recorded the first period billed before
   * the start (`created` is then that state): for operators, who read it in the Web UI's input. The
   * workflow does not act on it.
   */
  firstCharge?: ChargeReceipt | null;
  /**
   * The account's reminder days as the API read them at the creation (docs/decisions.md §31): the run's first
   * reminder is timed by them, so the creation's own workflow task asks the database nothing.
   */
  reminderDays?: ReminderDays;
};

/** Days before a renewal and before a trial's end their reminders go; null: none. */
export type ReminderDays = Record<ReminderEmailKind, number | null>;

export interface SubscriptionStateView extends SubscriptionState {
  nextBillingAt: number | null;
  nextAction: Action | null;
  /** A step (renewal, retry, update) is running. */
  busy: boolean;
  /** The workflow is waiting for the next action's time (or for a change): nothing is due. */
  settled: boolean;
  renewalsThisRun: number;
  /** BillingStatus as the workflow set it: the status, or `past_due` while an invoice is in dunning (absent from workers before it). */
  billingStatus?: string;
  /**
   * The times above in ISO-8601 (UTC), for people reading the query in the Web UI: keyed by field
   * (`nextBillingAt`, `nextAction.at`, `trialEnd`, `dunning.0.nextRetryAt`, ...); null times left out.
   */
  times?: Record<string, string>;
}

export const stateQuery = defineQuery<SubscriptionStateView>('state');

/**
 * The `created` update's answer: the subscription as recorded, and whether what is due at creation
 * (the first invoice and its charge) was still running when the creation wait ran out.
 */
export interface SubscriptionCreated {
  subscription: SubscriptionObject;
  billingPending: boolean;
}

/** Sent with the start (update-with-start): answers the subscription once what is due at creation (a first invoice) is done. */
export const createdUpdate = defineUpdate<SubscriptionCreated>('created');
/**
 * A pause or resume asked on a hosted page names it (docs/decisions.md §38); the API sends `{}` otherwise,
 * and an operator may send nothing (originArgs below).
 */
export type OriginArgs = { origin?: EventOrigin } | null;
export const pauseUpdate = defineUpdate<SubscriptionObject, [OriginArgs]>('pause');
export const resumeUpdate = defineUpdate<SubscriptionObject, [OriginArgs]>('resume');
/** `at_period_end` (the API's spelling) is accepted as well as `atPeriodEnd`: operators type either (docs/operations.md). */
export type CancelArgs = ({ atPeriodEnd: boolean } | { at_period_end: boolean }) & {
  /** Cancel now crediting the unused time of the period (docs/decisions.md §25). */
  prorate?: boolean;
  /** Asked on a hosted page (docs/decisions.md §38): its events, and a cancellation at period end, say so. */
  origin?: EventOrigin;
};
export const cancelUpdate = defineUpdate<SubscriptionObject, [CancelArgs]>('cancel');
export const changeUpdate = defineUpdate<SubscriptionObject, [SubscriptionChanges]>('update');
/**
 * An invoice of the subscription was paid or voided outside its workflow (PUT or DELETE /invoices/{id}):
 * a notice, not an order. The workflow reads the invoice itself and ends its dunning if it is settled,
 * so the status leaves past_due at once rather than at the next retry. Anything else sent is ignored.
 */
export const invoiceSettledSignal = defineSignal<[{ invoiceId: string }]>('invoiceSettled');
/** Usage events of the subscription's customer were written: a billing threshold is checked (docs/decisions.md §43). */
export const usageReportedSignal = defineSignal('usageReported');

// --- update arguments, as the workflow's validators check them ---
// Operators send updates too (Temporal Web UI, `temporal workflow update execute`), so every update
// parses its arguments in its validator: a missing argument, a wrong type or an unknown field is
// refused there, visibly, and never reaches a handler (where it would fail the workflow task).

/** No argument (or one empty object or null, as a form left empty may send): pause, resume, created. */
export const noArgs = lazySchema(() => z.union([z.tuple([]), z.tuple([z.strictObject({}).nullable()])]));

/** Pause and resume: no argument, or `{origin}` naming the hosted page they were asked on; answers the origin. */
export const originArgs = lazySchema(() =>
  z
    .union([z.tuple([]), z.tuple([z.strictObject({ origin: z.enum(EVENT_ORIGINS).optional() }).nullable()])])
    .transform((args) => args[0]?.origin),
);

export const cancelArgs = lazySchema(() =>
  z
    .tuple([
      z
        .strictObject({
          atPeriodEnd: z.boolean().optional(),
          at_period_end: z.boolean().optional(),
          prorate: z.boolean().optional(),
          origin: z.enum(EVENT_ORIGINS).optional(),
        })
        .refine((args) => args.atPeriodEnd !== undefined || args.at_period_end !== undefined, {
          message:
            'needs atPeriodEnd (or at_period_end): true to cancel at the end of the current period, false to cancel now',
        })
        .refine(
          (args) =>
            args.atPeriodEnd === undefined ||
            args.at_period_end === undefined ||
            args.atPeriodEnd === args.at_period_end,
          {
            message: 'atPeriodEnd and at_period_end disagree',
          },
        )
        .transform((args) => ({
          atPeriodEnd: (args.atPeriodEnd ?? args.at_period_end)!,
          ...(args.prorate ? { prorate: true } : {}),
          ...(args.origin ? { origin: args.origin } : {}),
        })),
    ])
    .transform(([args]) => args),
);

const itemChange = () => {
  const ids = z.array(z.string().min(1));
  return z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('add'),
      id: z.string().min(1),
      priceId: z.string().min(1),
      // 0 on a metered item (docs/decisions.md §43).
      quantity: z.number().int().nonnegative(),
      taxRateIds: ids,
      metered: z.boolean().optional(),
    }),
    z.strictObject({
      kind: z.literal('update'),
      id: z.string().min(1),
      priceId: z.string().min(1).optional(),
      quantity: z.number().int().nonnegative().optional(),
      taxRateIds: ids.optional(),
      metered: z.boolean().optional(),
    }),
    z.strictObject({ kind: z.literal('delete'), id: z.string().min(1) }),
  ]);
};

export const changeArgs = lazySchema(() => {
  const millis = z.number().int().nonnegative();
  return z
    .tuple([
      z.strictObject({
        items: z.array(z.strictObject({ param: z.string(), change: itemChange() })).optional(),
        collectionMethod: z.enum(COLLECTION_METHODS).optional(),
        defaultPaymentMethodId: z.string().min(1).nullable().optional(),
        cancelAt: millis.nullable().optional(),
        cancelAtPeriodEnd: z.boolean().optional(),
        endDate: millis.nullable().optional(),
        prorationBehavior: z.enum(PRORATION_BEHAVIORS).optional(),
        prorateEnd: z.boolean().optional(),
        billingThreshold: z.number().int().positive().nullable().optional(),
        origin: z.enum(EVENT_ORIGINS).optional(),
        coupon: z.string().min(1).optional(),
      }),
    ])
    .transform(([changes]): SubscriptionChanges => changes);
});

/** Where a zod issue points, in the update's own terms (`args.0.items.1.change.quantity`): `args` when it is the list itself. */
export function argumentPath(issue: z.core.$ZodIssue): string {
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  return ['args', ...path.map(String)].join('.');
}
