/**
 * What the payment-plan workflow, its activities, the API and the support CLI agree on: update,
 * signal and query names, their JSON arguments and answers, and the plan snapshot the activities hand
 * back. Types, constants and pure functions only, so that code outside the workflow sandbox can import it.
 */
import type { TestClockBinding, TestClockCarry } from './test-clock-contract';

export const PAYMENT_PLAN_WORKFLOW_TYPE = 'paymentPlanWorkflow';

export function paymentPlanWorkflowId(planId: string): string {
  return `payment-plan:${planId}`;
}

/** Signals support staff may send too (Temporal Web UI "Send a Signal", or `npm run support`). */
export const PAYMENT_PLAN_SIGNALS = {
  resolveTerminalPayment: 'resolveTerminalPayment',
  cancelTerminalPayment: 'cancelTerminalPayment',
  resolveDeposit: 'resolveDeposit',
  cancelDeposit: 'cancelDeposit',
  cancelPlan: 'cancelPlan',
  /** Sent by the API after it changed the plan itself (payment recorded, terminal report): re-read it. */
  planUpdated: 'planUpdated',
} as const;

/**
 * The requests a plan takes: resolve or cancel a terminal payment or the deposit, cancel the plan. Each
 * is an update, and a signal of the same name for plans already running.
 */
export type PaymentPlanRequestKind = Exclude<keyof typeof PAYMENT_PLAN_SIGNALS, 'planUpdated'>;

/**
 * The same requests as updates (Temporal Web UI "Send an Update", `npm run support`, and the API):
 * each has a validator that refuses a bad argument before anything is written to the history (the
 * caller sees the refusal, naming the field), and the update answers what the workflow did with it
 * (a PaymentPlanRequestRecord). The signals of the same names stay for plans already running.
 */
export const PAYMENT_PLAN_UPDATES: Record<PaymentPlanRequestKind, string> = {
  resolveTerminalPayment: 'resolveTerminalPayment',
  cancelTerminalPayment: 'cancelTerminalPayment',
  resolveDeposit: 'resolveDeposit',
  cancelDeposit: 'cancelDeposit',
  cancelPlan: 'cancelPlan',
};

/** ApplicationFailure type of an update refused by its validator; details[0] is a RequestArgsIssue. */
export const REQUEST_REFUSED_FAILURE = 'PaymentPlanRequestRefused';

export const PAYMENT_PLAN_STATE_QUERY = 'state';

export type TerminalOutcome = 'approved' | 'declined';

/**
 * Argument of resolveTerminalPayment / resolveDeposit (resolveDeposit has no payment_id: it takes the
 * plan's current deposit attempt). `outcome` is the outcome known from elsewhere (receipt, processor
 * dashboard); needed for `waiting` and `resolving`, implied (`approved`) for `approved_no_credential`.
 * `payment_method` (a pm_ id attached to the customer) is stored as the plan's card; `external: true`
 * says the next installments are collected outside the service (no card on file).
 */
export interface ResolveTerminalPaymentArgs {
  payment_id?: string;
  /** Who asked (recorded in the payment's resolution): the API sends `api`, the CLI `support-cli`; default `signal`. */
  source?: string;
  outcome?: TerminalOutcome;
  payment_method?: string;
  external?: boolean;
  /** Any string; the outcome is recorded under it in the `state` query's `requests`. */
  request_id?: string;
}

export interface CancelTerminalPaymentArgs {
  payment_id?: string;
  source?: string;
  request_id?: string;
}

export interface CancelPlanArgs {
  reason?: string;
  source?: string;
  request_id?: string;
}

export type PaymentPlanRequestArgs = ResolveTerminalPaymentArgs & CancelTerminalPaymentArgs & CancelPlanArgs;

export type PlanStatus = 'pending' | 'active' | 'past_due' | 'defaulted' | 'completed' | 'canceled';
export type InstallmentStatus = 'scheduled' | 'paid' | 'failed' | 'overdue' | 'canceled';
export type TerminalState = 'waiting' | 'resolving' | 'approved_no_credential' | 'approved' | 'declined' | 'cancelled';

export const FINAL_PLAN_STATUSES: readonly PlanStatus[] = ['completed', 'canceled'];

/** The plan as the workflow needs it; times are epoch milliseconds. */
export interface PlanSnapshot {
  planId: string;
  status: PlanStatus;
  hasPaymentMethod: boolean;
  pastDueAt: number | null;
  defaultAfterDays: number;
  installments: {
    number: number;
    dueAt: number;
    status: InstallmentStatus;
    held: boolean;
    automaticAttempts: number;
  }[];
  /** Terminal payments not finished yet (waiting on the terminal, or needing a resolution). */
  openTerminalPayments: {
    paymentId: string;
    terminalId: string | null;
    state: TerminalState;
    deposit: boolean;
    since: number;
  }[];
}

/** A request carried out. */
export interface PaymentPlanRequestApplied {
  applied: true;
  message: string;
  payment_id?: string | null;
  /** The payment's terminal state after the request, when it concerns a payment. */
  terminal_state?: TerminalState | null;
}

/** The codes of a request refused for its argument: the field at fault is in `param` (the API answers 400). */
export const ARGUMENT_REFUSAL_CODES = ['parameter_invalid', 'parameter_missing', 'parameter_unknown'] as const;
export type ArgumentRefusalCode = (typeof ARGUMENT_REFUSAL_CODES)[number];

/** The code of a request that reached a plan whose workflow had ended (completed or canceled). */
export const PLAN_CLOSED = 'payment_plan_closed';

/**
 * A request refused, and why, in the API's error code: an argument refused (ArgumentRefusalCode,
 * naming the field in `param`), or the state of the plan or of the payment (PLAN_CLOSED, invalid_state,
 * ...: the API answers 409).
 */
export interface PaymentPlanRequestRefusal {
  applied: false;
  code: string;
  param?: string;
  message: string;
  payment_id?: string | null;
}

export type PaymentPlanRequestResult = PaymentPlanRequestApplied | PaymentPlanRequestRefusal;

/** Whether a refusal is of the request's argument, rather than of the state of the plan or payment. */
export function refusedArgument(refusal: PaymentPlanRequestRefusal): refusal is PaymentPlanRequestRefusal & {
  code: ArgumentRefusalCode;
} {
  return (ARGUMENT_REFUSAL_CODES as readonly string[]).includes(refusal.code);
}

interface RequestRecordFields {
  request_id: string;
  /** The request's kind (an update or a signal of that name), under the field's name from when requests were signals. */
  signal: PaymentPlanRequestKind;
  /** Workflow time (ms) the request was handled. */
  at: number;
}

/** A request as the workflow recorded it (the `state` query's `requests`) and answers it. */
export type PaymentPlanRequestRecord = PaymentPlanRequestResult & RequestRecordFields;
/** A refused request as the workflow recorded it: a refusal fails its update with this record (REQUEST_REFUSED_FAILURE). */
export type PaymentPlanRefusalRecord = PaymentPlanRequestRefusal & RequestRecordFields;

export interface PaymentPlanWorkflowInput {
  planId: string;
  accountId: string;
  customerId: string;
  /** A plan of a customer on a test clock runs on the clock's time (workflows/clock.ts). */
  testClock?: TestClockBinding | TestClockCarry;
}

export interface PaymentPlanWorkflowState {
  planId: string;
  status: PlanStatus;
  /** Workflow time (ms) of the next timer, and what it will do. */
  nextWakeAt: number | null;
  nextAction: 'charge_installment' | 'mark_overdue' | 'default' | null;
  installmentsPaid: number;
  installmentsCount: number;
  openTerminalPayments: PlanSnapshot['openTerminalPayments'];
  /** The last requests (signals) handled, newest last. */
  requests: PaymentPlanRequestRecord[];
  /** The times above in ISO-8601 (UTC), for people reading the query in the Web UI (`nextWakeAt`, `requests.0.at`, ...). */
  times?: Record<string, string>;
}
