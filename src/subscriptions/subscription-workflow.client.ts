import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { WorkflowNotFoundError, type UpdateDefinition } from '@temporalio/common';
import { ApiError, conflict } from '../http/errors';
import { BILLING_ACCOUNT_ID, BILLING_CUSTOMER_ID } from '../temporal/search-attributes';
import type { subscriptionWorkflow } from '../../workflows/subscription';
import { createdUpdate, SUBSCRIPTION_WORKFLOW_TYPE, subscriptionWorkflowId } from '../../workflows/subscription-messages';
import type { SubscriptionCreateSpec } from './subscription-machine';
import { rejectionOf, type Rejection } from './subscription-rejection';
import type { SubscriptionObject } from './subscription.schemas';

function toApiError(rejection: Rejection): ApiError {
  const type = rejection.status === 409 ? 'conflict' : rejection.status === 404 ? 'not_found' : 'invalid_request_error';
  return new ApiError(type, rejection.code, rejection.message, rejection.param);
}

function translated(error: unknown): unknown {
  const rejection = rejectionOf(error);
  return rejection ? toApiError(rejection) : error;
}

/**
 * Starts `subscription:<id>` and, in the same call (update-with-start), waits for its `created`
 * answer: the row and subscription.created are written by the workflow, so nothing exists unless the
 * workflow does. Account and customer go into search attributes and memo for operators.
 */
export async function startSubscriptionWorkflow(temporal: Client, taskQueue: string, spec: SubscriptionCreateSpec): Promise<SubscriptionObject> {
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof subscriptionWorkflow>(SUBSCRIPTION_WORKFLOW_TYPE, {
    workflowId: subscriptionWorkflowId(spec.id),
    taskQueue,
    args: [{ create: spec }],
    workflowIdConflictPolicy: 'FAIL',
    memo: { accountId: spec.accountId, customerId: spec.customerId },
    typedSearchAttributes: [
      { key: BILLING_ACCOUNT_ID, value: spec.accountId },
      { key: BILLING_CUSTOMER_ID, value: spec.customerId },
    ],
  });
  try {
    return await temporal.workflow.executeUpdateWithStart(createdUpdate, { startWorkflowOperation });
  } catch (error) {
    throw translated(error);
  }
}

/**
 * Sends one update to a live subscription's workflow and answers the subscription it returns. A
 * refusal by the workflow becomes the API error it names (409 for a forbidden move); a workflow that
 * has already ended means the subscription ended meanwhile.
 */
export async function updateSubscriptionWorkflow<Args extends [] | [unknown]>(
  temporal: Client,
  subscriptionId: string,
  update: UpdateDefinition<SubscriptionObject, Args>,
  args: Args,
): Promise<SubscriptionObject> {
  try {
    const handle = temporal.workflow.getHandle(subscriptionWorkflowId(subscriptionId));
    return await handle.executeUpdate<SubscriptionObject, [unknown]>(update.name, { args: args as [unknown] });
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw conflict(`Subscription ${subscriptionId} has ended.`, 'subscription_ended');
    throw translated(error);
  }
}
