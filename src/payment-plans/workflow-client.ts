import crypto from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApiError } from '../http/errors';
import { logger } from '../http/logger';
import {
  PAYMENT_PLAN_SIGNALS,
  PAYMENT_PLAN_STATE_QUERY,
  paymentPlanWorkflowId,
  type PaymentPlanRequestArgs,
  type PaymentPlanRequestRecord,
  type PaymentPlanRequestResult,
  type PaymentPlanRequestSignal,
  type PaymentPlanWorkflowState,
} from '../../workflows/payment-plan-contract';

export const REQUEST_TIMEOUT_MS = 15_000;
const POLL_MS = 50;

/**
 * Sends one of the plan's request signals (the very signal support staff can send by hand) with a
 * fresh request_id, then waits until the workflow's `state` query lists that request as handled.
 * Answers the record (applied or not, with the reason).
 */
export async function sendPlanRequest(
  client: Client,
  planId: string,
  signal: PaymentPlanRequestSignal,
  args: PaymentPlanRequestArgs,
  options: {
    timeoutMs?: number;
    /**
     * Carries the request out directly when the workflow has ended (plan completed or canceled), so
     * that, say, a terminal payment left resolving can still be resolved. The same code the workflow's
     * activity runs.
     */
    whenEnded?: (args: PaymentPlanRequestArgs) => Promise<PaymentPlanRequestResult>;
  } = {},
): Promise<PaymentPlanRequestRecord> {
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const requestId = args.request_id ?? `req_${crypto.randomUUID()}`;
  const sent = { ...args, request_id: requestId };
  const handle = client.workflow.getHandle(paymentPlanWorkflowId(planId));
  try {
    await handle.signal(PAYMENT_PLAN_SIGNALS[signal], sent);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    if (options.whenEnded) return { request_id: requestId, signal, at: Date.now(), ...(await options.whenEnded(sent)) };
    throw new ApiError('conflict', 'payment_plan_closed', `The workflow of payment plan ${planId} has ended; the plan takes no more requests.`);
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await handle.query<PaymentPlanWorkflowState>(PAYMENT_PLAN_STATE_QUERY);
    const record = state.requests.find((request) => request.request_id === requestId);
    if (record) return record;
    if (Date.now() > deadline) {
      throw new ApiError(
        'api_error',
        'workflow_timeout',
        `The request was sent to payment plan ${planId} (request_id ${requestId}) but not handled within ${timeoutMs / 1000} s; poll the plan.`,
        undefined,
        504,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A request the workflow did not apply, as the API answers it. */
export function rejectionError(record: PaymentPlanRequestRecord): ApiError {
  if (record.code?.startsWith('parameter_')) {
    return new ApiError('invalid_request_error', record.code, record.message, record.param);
  }
  return new ApiError('conflict', record.code ?? 'invalid_state', record.message);
}

/** Tells the workflow the API changed the plan, so it re-reads it. A plan whose workflow has ended needs no telling. */
export async function notifyPlanUpdated(client: Client, planId: string): Promise<void> {
  try {
    await client.workflow.getHandle(paymentPlanWorkflowId(planId)).signal(PAYMENT_PLAN_SIGNALS.planUpdated);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return;
    // The workflow re-reads the plan before each step it takes anyway; a lost nudge only delays it.
    logger.warn({ err: error, planId }, 'could not signal planUpdated');
  }
}
