import crypto from 'node:crypto';
import { currentTime } from '../lib/clock-time';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ApiError } from '../http/errors';
import { logger } from '../http/logger';
import type { RequestArgsIssue } from '../../workflows/payment-plan-requests';
import {
  PAYMENT_PLAN_SIGNALS,
  PAYMENT_PLAN_UPDATES,
  paymentPlanWorkflowId,
  PLAN_CLOSED,
  refusedArgument,
  REQUEST_REFUSED_FAILURE,
  type PaymentPlanRefusalRecord,
  type PaymentPlanRequestArgs,
  type PaymentPlanRequestRecord,
  type PaymentPlanRequestResult,
  type PaymentPlanRequestKind,
} from '../../workflows/payment-plan-contract';
import { tellingChangedPlans } from './plan-settlement';

export const REQUEST_TIMEOUT_MS = 15_000;

/**
 * Sends one of the plan's request updates (the very update support staff can send by hand) with a
 * fresh request_id (also the update id, so a retried call is the same update), and answers what the
 * workflow did with it: applied, or refused with the reason (a refused record). A bad argument,
 * refused by the update's validator before it reached the workflow, is answered as a refused record
 * too (its code an ArgumentRefusalCode, naming the field). Only failures (timeout, workflow failed) throw.
 */
export async function sendPlanRequest(
  client: Client,
  planId: string,
  request: PaymentPlanRequestKind,
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
  // The plan ended while the request waited in the workflow: carried out directly like after the end.
  const settledRecord = async (record: PaymentPlanRequestRecord): Promise<PaymentPlanRequestRecord> =>
    !record.applied && record.code === PLAN_CLOSED && options.whenEnded ? carryOutDirectly() : record;
  const carryOutDirectly = async (): Promise<PaymentPlanRequestRecord> => {
    if (!options.whenEnded) {
      throw new ApiError(
        'conflict',
        PLAN_CLOSED,
        `The workflow of payment plan ${planId} has ended; the plan takes no more requests.`,
      );
    }
    return { request_id: requestId, signal: request, at: currentTime().getTime(), ...(await options.whenEnded(sent)) };
  };

  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError(
            'api_error',
            'workflow_timeout',
            `The request was sent to payment plan ${planId} (request_id ${requestId}) but not handled within ${timeoutMs / 1000} s; poll the plan.`,
            undefined,
            504,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    const record = await Promise.race([
      handle.executeUpdate<PaymentPlanRequestRecord, [PaymentPlanRequestArgs]>(PAYMENT_PLAN_UPDATES[request], {
        args: [sent],
        updateId: requestId,
      }),
      timedOut,
    ]);
    return await settledRecord(record);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return carryOutDirectly();
    if (error instanceof WorkflowUpdateFailedError) {
      // Refused by the workflow: the update failed (shown failed in the Web UI) with its record.
      const refused = refusedRecord(error);
      if (refused) return await settledRecord(refused);
      const issue = argumentIssue(error);
      if (issue) {
        return {
          request_id: requestId,
          signal: request,
          at: currentTime().getTime(),
          applied: false,
          code: issue.code,
          ...(issue.param ? { param: issue.param } : {}),
          message: issue.message,
          payment_id: sent.payment_id ?? null,
        };
      }
      throw updateFailure(error);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The record of a request the workflow carried out and refused (the failure's detail), if that is what failed the update. */
function refusedRecord(error: WorkflowUpdateFailedError): PaymentPlanRefusalRecord | undefined {
  const cause = error.cause;
  if (!(cause instanceof ApplicationFailure) || cause.type !== REQUEST_REFUSED_FAILURE) return undefined;
  const detail = cause.details?.[0] as Partial<PaymentPlanRequestRecord> | undefined;
  return detail && detail.applied === false ? (detail as PaymentPlanRefusalRecord) : undefined;
}

/** The argument an update's validator refused (nothing reached the workflow), if that is what failed the update. */
function argumentIssue(error: WorkflowUpdateFailedError): RequestArgsIssue | undefined {
  const cause = error.cause;
  if (!(cause instanceof ApplicationFailure) || cause.type !== REQUEST_REFUSED_FAILURE) return undefined;
  const issue = cause.details?.[0] as Partial<RequestArgsIssue> | undefined;
  return {
    code: issue?.code ?? 'parameter_invalid',
    param: issue?.param ?? '',
    message: cause.message,
  };
}

/** The update failed for another reason than a refusal: the workflow did not carry the request out. */
function updateFailure(error: WorkflowUpdateFailedError): ApiError {
  const cause = error.cause;
  return new ApiError(
    'api_error',
    'workflow_request_failed',
    `The payment plan's workflow did not carry the request out: ${cause?.message ?? error.message}`,
    undefined,
    502,
  );
}

/** A refused request, as the API answers it: 400 naming the field for its argument, else 409 for the state of the plan or payment. */
export function rejectionError(record: PaymentPlanRefusalRecord): ApiError {
  if (refusedArgument(record)) return new ApiError('invalid_request_error', record.code, record.message, record.param);
  return new ApiError('conflict', record.code, record.message);
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

/**
 * Runs `work` (a request, a reconciliation's pass, a processor's report) and tells the workflow of each plan whose
 * payment it opened or settled, once (src/payment-plans/plan-settlement.ts, docs/decisions.md §9).
 */
export function tellingPlansOfChangedPayments<T>(client: Client, work: () => Promise<T>): Promise<T> {
  return tellingChangedPlans(async (planIds) => {
    await Promise.all(planIds.map((planId) => notifyPlanUpdated(client, planId)));
  }, work);
}
