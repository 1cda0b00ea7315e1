import { ApplicationFailure } from '@temporalio/common';
import { SubscriptionRuleError } from './subscription-machine';

/**
 * How a refusal travels from the workflow (an update validator or handler) or an activity to the
 * API: an ApplicationFailure of this type whose one detail says what kind of refusal it is; the API
 * alone turns the kind into an HTTP answer (subscription-workflow.client.ts). Safe to import in
 * workflow code.
 */
export const REJECTION_TYPE = 'SubscriptionRejected';

/** A period that cannot be invoiced (e.g. its customer was deleted): the workflow records it and moves on. */
export const RENEWAL_REJECTED = 'RenewalRejected';

/** A bad argument, something named that does not exist, or a move the subscription's state forbids. */
export type RejectionKind = 'invalid' | 'not_found' | 'conflict';

export interface Rejection {
  kind: RejectionKind;
  code: string;
  message: string;
  param?: string;
}

export function rejectionFailure(rejection: Rejection): ApplicationFailure {
  return ApplicationFailure.create({
    type: REJECTION_TYPE,
    message: rejection.message,
    nonRetryable: true,
    details: [rejection],
  });
}

export function ruleRejection(error: SubscriptionRuleError): ApplicationFailure {
  return rejectionFailure({
    kind: error.kind,
    code: error.code,
    message: error.message,
    ...(error.param ? { param: error.param } : {}),
  });
}

/** Failures made before RejectionKind carried the HTTP status instead (a worker of the previous release). */
const KIND_OF_STATUS: Record<number, RejectionKind> = { 400: 'invalid', 404: 'not_found', 409: 'conflict' };

/** The Rejection carried by a failure (directly or as the cause of an ActivityFailure), if any. */
export function rejectionOf(error: unknown): Rejection | undefined {
  const detail = applicationFailureOf(error, REJECTION_TYPE)?.details?.[0] as
    (Omit<Rejection, 'kind'> & { kind?: RejectionKind; status?: number }) | undefined;
  if (!detail) return undefined;
  const { status, kind, ...rest } = detail;
  return { kind: kind ?? KIND_OF_STATUS[status ?? 400] ?? 'invalid', ...rest };
}

/**
 * The ApplicationFailure of `type` in `error` or its causes: an activity's failure arrives wrapped in
 * an ActivityFailure, a local activity's (and a client's) as it is or wrapped otherwise.
 */
export function applicationFailureOf(error: unknown, type: string): ApplicationFailure | undefined {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (current instanceof ApplicationFailure && current.type === type) return current;
  }
  return undefined;
}
