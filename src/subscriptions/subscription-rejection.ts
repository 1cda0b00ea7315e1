import { ApplicationFailure } from '@temporalio/common';
import { SubscriptionRuleError } from './subscription-machine';

/**
 * How a refusal travels from the workflow (an update validator or handler) or an activity to the
 * API: an ApplicationFailure of this type whose one detail says which HTTP answer to give. Safe to
 * import in workflow code.
 */
export const REJECTION_TYPE = 'SubscriptionRejected';

/** A period that cannot be invoiced (e.g. its customer was deleted): the workflow records it and moves on. */
export const RENEWAL_REJECTED = 'RenewalRejected';

export interface Rejection {
  status: 400 | 404 | 409;
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
    status: error.kind === 'conflict' ? 409 : 400,
    code: error.code,
    message: error.message,
    ...(error.param ? { param: error.param } : {}),
  });
}

/** The Rejection carried by a failure (directly or as the cause of an ActivityFailure), if any. */
export function rejectionOf(error: unknown): Rejection | undefined {
  return applicationFailureOf(error, REJECTION_TYPE)?.details?.[0] as Rejection | undefined;
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
