import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { Action, SubscriptionChanges, SubscriptionCreateSpec, SubscriptionState } from '../src/subscriptions/subscription-machine';
import type { SubscriptionObject } from '../src/subscriptions/subscription.schemas';

/**
 * The subscription workflow's interface, shared by the workflow and its callers (the API, tests,
 * operators): workflow id, input, the `state` query and the updates that change a subscription.
 */
export const SUBSCRIPTION_WORKFLOW_TYPE = 'subscriptionWorkflow';

export function subscriptionWorkflowId(subscriptionId: string): string {
  return `subscription:${subscriptionId}`;
}

/** A new subscription, or the state carried over by continue-as-new. */
export type SubscriptionWorkflowInput = { create: SubscriptionCreateSpec } | { continued: SubscriptionState };

export interface SubscriptionStateView extends SubscriptionState {
  nextBillingAt: number | null;
  nextAction: Action | null;
  /** A step (renewal, retry, update) is running. */
  busy: boolean;
  /** The workflow is waiting for the next action's time (or for a change): nothing is due. */
  settled: boolean;
  renewalsThisRun: number;
}

export const stateQuery = defineQuery<SubscriptionStateView>('state');

/** Sent with the start (update-with-start): answers the subscription once what is due at creation (a first invoice) is done. */
export const createdUpdate = defineUpdate<SubscriptionObject>('created');
export const pauseUpdate = defineUpdate<SubscriptionObject>('pause');
export const resumeUpdate = defineUpdate<SubscriptionObject>('resume');
export const cancelUpdate = defineUpdate<SubscriptionObject, [{ atPeriodEnd: boolean }]>('cancel');
export const changeUpdate = defineUpdate<SubscriptionObject, [SubscriptionChanges]>('update');
