import { isGrpcServiceError, type Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { Db } from '../db/prisma';
import { WorkflowNotFoundError, type UpdateDefinition } from '@temporalio/common';
import { ApiError, conflict, ServiceUnavailableError, type ErrorType } from '../http/errors';
import { BILLING_ACCOUNT_ID, BILLING_CUSTOMER_ID, BILLING_STATUS } from '../temporal';
import { isStartPending, type WorkflowStart } from '../temporal';
import { displayStartOptions, type WorkflowDisplay } from '../temporal';
import {
  invoiceSettledSignal,
  usageReportedSignal,
  stateQuery,
  SUBSCRIPTION_WORKFLOW_TYPE,
  subscriptionWorkflowId,
  type ReminderDays,
  type SubscriptionWorkflowInput,
} from '../../workflows/subscription-messages';
import { logger } from '../http/logger';
import { config } from '../config';
import { nextAction, type SubscriptionState } from './subscription-machine';
import type { TestClockBinding } from '../../workflows/test-clock-contract';
import { rejectionOf, type Rejection, type RejectionKind } from './subscription-rejection';
import type { SubscriptionObject } from './subscription.schemas';
import { subscriptionTimerSummary } from '../../workflows/summaries';
import { historyMark, KnownStates, type HistoryMark } from './known-states';
import type { ChargeReceipt } from '../transactions';
import type { SettledInvoice } from '../invoices';

const ERROR_TYPE_OF: Record<RejectionKind, ErrorType> = {
  invalid: 'invalid_request_error',
  not_found: 'not_found',
  conflict: 'conflict',
};

function toApiError(rejection: Rejection): ApiError {
  return new ApiError(ERROR_TYPE_OF[rejection.kind], rejection.code, rejection.message, rejection.param);
}

/** The most subscriptions' states one API process keeps (each a few KB). */
const KNOWN_STATES_MAX = 2_000;
/** How long the API waits for Temporal to answer a health probe before it answers 503. */
const TEMPORAL_PROBE_MS = 2_000;
/** What 503 tells the caller in Retry-After (seconds). */
const RETRY_AFTER_SECONDS = 5;

const temporalUnavailable = () =>
  new ServiceUnavailableError(
    'temporal_unavailable',
    'The workflow service (Temporal) does not answer; nothing was changed. Ask again in a few seconds.',
    RETRY_AFTER_SECONDS,
  );

/** Temporal stopped answering after the change was sent: it may still apply, so the answer says so instead of "nothing changed". */
const lostDuringCall = (subscriptionId: string) =>
  new ServiceUnavailableError(
    'temporal_unavailable',
    `The workflow service (Temporal) stopped answering while the change was sent; it may still apply. GET /subscriptions/${subscriptionId} before asking again.`,
    RETRY_AFTER_SECONDS,
  );

/** gRPC status codes DEADLINE_EXCEEDED and UNAVAILABLE: Temporal cannot be reached (as opposed to a refusal of the request). */
const UNREACHABLE_CODES = [4, 14];

function isUnreachable(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (isGrpcServiceError(current) && UNREACHABLE_CODES.includes(current.code)) return true;
  }
  return false;
}

function translated(error: unknown, subscriptionId: string): unknown {
  const rejection = rejectionOf(error);
  if (rejection) return toApiError(rejection);
  return isUnreachable(error) ? lostDuringCall(subscriptionId) : error;
}

/**
 * Asks Temporal a cheap question under a short deadline before a change is sent: when it is down,
 * the client would otherwise retry for some 20 s before failing. A change then answers 503 with
 * Retry-After at once, and nothing is started or changed.
 */
async function assertTemporalReachable(temporal: Client): Promise<void> {
  await probed(temporal, () => temporal.workflowService.getSystemInfo({}));
}

/** `call` under the probe's short deadline: Temporal not answering is 503 with Retry-After at once. */
async function probed<T>(temporal: Client, call: () => Promise<T>): Promise<T> {
  try {
    return await temporal.withDeadline(Date.now() + TEMPORAL_PROBE_MS, call);
  } catch (error) {
    if (isUnreachable(error)) throw temporalUnavailable();
    throw error;
  }
}

/** What a subscription's start carries besides its state: how operators see it, and the account's reminder days then. */
export interface SubscriptionStartExtras {
  display?: WorkflowDisplay;
  reminderDays?: ReminderDays;
}

/**
 * The start of `subscription:<id>` for the workflow-start outbox (decisions.md §14): its input is the
 * state the API has persisted. Account and customer go into search attributes and memo for
 * operators, with the status the row shows.
 */
export function subscriptionWorkflowStart(
  taskQueue: string,
  state: SubscriptionState,
  testClock: TestClockBinding | null,
  { display, reminderDays }: SubscriptionStartExtras = {},
  firstCharge?: ChargeReceipt | null,
): WorkflowStart {
  const shown = display ? displayStartOptions(display) : undefined;
  // The API's charge first: the Web UI shows the input from its top.
  const input: SubscriptionWorkflowInput = {
    ...(firstCharge !== undefined ? { firstCharge } : {}),
    created: state,
    ...(testClock ? { testClock } : {}),
    ...(reminderDays ? { reminderDays } : {}),
  };
  const firstStep = nextAction(state);
  const delayed = firstStep && !testClock && config.subscriptionFirstTask === 'first-step';
  return {
    workflowId: subscriptionWorkflowId(state.id),
    accountId: state.accountId,
    workflowType: SUBSCRIPTION_WORKFLOW_TYPE,
    taskQueue,
    args: [input],
    // Until its first step the workflow has nothing to do: its first task waits for it (docs/decisions.md §14),
    // unless the operator chose queries from the first second. A test clock's subscription waits on its
    // clock's signals instead, which a start delay would not let in.
    ...(delayed ? { firstTaskAt: firstStep.at } : {}),
    memo: { accountId: state.accountId, customerId: state.customerId },
    staticSummary: shown?.staticSummary,
    // Its history shows no timer before the first step: the details name it.
    staticDetails:
      shown && firstStep
        ? `${shown.staticDetails}\n\n**First step**: ${subscriptionTimerSummary(firstStep, state)}`
        : shown?.staticDetails,
    searchAttributes: [
      { key: BILLING_ACCOUNT_ID, value: state.accountId },
      { key: BILLING_CUSTOMER_ID, value: state.customerId },
      { key: BILLING_STATUS, value: state.status },
      ...(shown?.emailHashAttribute ?? []),
    ],
  };
}

/**
 * Sends one update to a live subscription's workflow and answers the subscription it returns. A
 * refusal by the workflow becomes the API error it names (409 for a forbidden move); a workflow that
 * has already ended means the subscription ended meanwhile. `updateId`: the update's id, derived from
 * the request's Idempotency-Key claim (claimOperationId), so that a keyed request taken over after it
 * died is the same update: Temporal answers the first one's result instead of running it again
 * (decisions.md §11); without it each call is a new update.
 */
export async function updateSubscriptionWorkflow<Args extends [] | [unknown]>(
  { temporal, prisma }: { temporal: Client; prisma: Db },
  subscriptionId: string,
  update: UpdateDefinition<SubscriptionObject, Args>,
  args: Args,
  updateId?: string,
): Promise<SubscriptionObject> {
  await assertTemporalReachable(temporal);
  try {
    const handle = temporal.workflow.getHandle(subscriptionWorkflowId(subscriptionId));
    return await handle.executeUpdate<SubscriptionObject, [unknown]>(update.name, {
      args: args as [unknown],
      ...(updateId ? { updateId } : {}),
    });
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      // Created, and its workflow not started yet (Temporal was down at the creation): the worker starts it.
      if (await isStartPending(prisma, subscriptionWorkflowId(subscriptionId))) {
        throw conflict(
          `Subscription ${subscriptionId} is still being started; ask again in a few seconds.`,
          'subscription_starting',
        );
      }
      throw conflict(`Subscription ${subscriptionId} has ended.`, 'subscription_ended');
    }
    throw translated(error, subscriptionId);
  }
}

/**
 * Tells the subscription's workflow of each of its invoices a request paid or voided
 * (src/invoices/invoice-settlement.ts), so a subscription in dunning leaves past_due at once (decisions.md §7).
 * A notice: when it cannot be sent (Temporal down, the workflow ended) the next dunning retry finds the
 * invoice settled all the same.
 */
export function noticeInvoicesSettled(temporal: Client): (settled: SettledInvoice[]) => Promise<void> {
  return async (settled) => {
    await Promise.all(
      settled.map(async ({ invoiceId, subscriptionId }) => {
        try {
          await temporal.workflow
            .getHandle(subscriptionWorkflowId(subscriptionId))
            .signal(invoiceSettledSignal, { invoiceId });
        } catch (error) {
          logger.info(
            { err: error, invoiceId, subscriptionId },
            'invoice settled: the subscription workflow was not told',
          );
        }
      }),
    );
  };
}

/**
 * Tells the workflows of subscriptions with a billing threshold that their customer's usage was written, so each
 * checks its threshold (docs/decisions.md §43, "Billing thresholds"). A notice: one that cannot be sent is made
 * good by the next batch's, and the period's own invoice bills the usage whatever happens. Under a short deadline,
 * so that a batch already written answers at once when Temporal is down (ingestion needs only PostgreSQL).
 */
export async function noticeUsageReported(temporal: Client, subscriptionIds: string[]): Promise<void> {
  await Promise.all(
    subscriptionIds.map(async (subscriptionId) => {
      try {
        await temporal.withDeadline(Date.now() + TEMPORAL_PROBE_MS, () =>
          temporal.workflow.getHandle(subscriptionWorkflowId(subscriptionId)).signal(usageReportedSignal),
        );
      } catch (error) {
        logger.info({ err: error, subscriptionId }, 'usage reported: the subscription workflow was not told');
      }
    }),
  );
}

/** gRPC FAILED_PRECONDITION: what Temporal answers at once to a query of a workflow that has never had a task. */
const FAILED_PRECONDITION = 9;

function hasGrpcCode(error: unknown, code: number): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (isGrpcServiceError(current) && current.code === code) return true;
  }
  return false;
}

/**
 * How long the state query runs alone before the probe is sent beside it: a query is answered in milliseconds, and
 * Temporal down must still be 503 within a few seconds.
 */
const STATE_QUERY_ALONE_MS = 500;
/** The longest a worker may take to answer the state query (a busy period end) before the read gives up. */
const STATE_QUERY_MAX_MS = 30_000;

/**
 * The `state` query, and the probe only when it is not answered at once: one round trip to Temporal when it
 * answers. Past STATE_QUERY_ALONE_MS Temporal may be unreachable or a worker slow to answer: the probe, which
 * Temporal answers alone, is sent beside it; no answer is 503, an answer leaves the query to finish (a busy
 * worker answers late, not never).
 */
async function queryState(temporal: Client, handle: ReturnType<Client['workflow']['getHandle']>) {
  const abandon = new AbortController();
  const query = temporal.withAbortSignal(abandon.signal, () =>
    temporal.withDeadline(Date.now() + STATE_QUERY_MAX_MS, () => handle.query(stateQuery)),
  );
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    query.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STATE_QUERY_ALONE_MS))),
  ]);
  clearTimeout(timer);
  if (!answered) {
    try {
      await assertTemporalReachable(temporal);
    } catch (unreachable) {
      query.catch(() => undefined);
      abandon.abort();
      throw unreachable;
    }
  }
  try {
    return await query;
  } catch (error) {
    if (isUnreachable(error)) throw temporalUnavailable();
    throw error;
  }
}

/**
 * The states this process last read, by subscription (docs/decisions.md §25, "The upcoming invoice's state"): a
 * repeated read whose workflow's history has not moved since is answered by the server's describe alone.
 */
const knownStates = new KnownStates(KNOWN_STATES_MAX);

/**
 * The state this process last read of the subscription and the history mark it holds at (a copy), before any call to
 * Temporal: whether it is still the state is known only once a describe gives the same mark (sameHistory).
 */
export function lastKnownSubscriptionState(
  subscriptionId: string,
): { mark: HistoryMark; state: SubscriptionState } | undefined {
  return knownStates.latest(subscriptionId);
}

/**
 * The subscription's state as its workflow holds it (pending proration lines included), for reads that
 * must bill exactly as the workflow will (the upcoming-invoice preview). The server's describe first, under the
 * probe's deadline (Temporal down is 503 at once): when the run's history has not moved since this process last
 * asked, the state it answered then is the state now (KnownStates); otherwise the `state` query. A workflow still waiting
 * on its start delay (decisions.md §14) has run no task: Temporal refuses the query at once without scheduling
 * one, and its state is then its input, read from the start event of its history (decoded by the client's
 * codec), since nothing has changed it yet. Answered with the history mark the state holds at (null when the server
 * gave none): a read that started on the state this process last had (lastKnownSubscriptionState) keeps what it
 * made only when the marks are the same.
 */
export async function readSubscriptionState(
  { temporal, prisma }: { temporal: Client; prisma: Db },
  subscriptionId: string,
): Promise<{ state: SubscriptionState; mark: HistoryMark | null }> {
  const handle = temporal.workflow.getHandle(subscriptionWorkflowId(subscriptionId));
  try {
    const mark = await probed(temporal, () => historyMark(temporal, handle.workflowId));
    const known = mark && knownStates.at(subscriptionId, mark);
    if (known) return { state: known, mark };
    const state = await askedState(temporal, handle);
    if (mark) knownStates.remember(subscriptionId, mark, state);
    return { state, mark };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      if (await isStartPending(prisma, subscriptionWorkflowId(subscriptionId)))
        throw conflict(
          `Subscription ${subscriptionId} is still being started; ask again in a few seconds.`,
          'subscription_starting',
        );
      throw conflict(`Subscription ${subscriptionId} has ended.`, 'subscription_ended');
    }
    throw translated(error, subscriptionId);
  }
}

/** The `state` query, or the start's input of a workflow that has run no task yet (Temporal refuses its query). */
async function askedState(
  temporal: Client,
  handle: ReturnType<Client['workflow']['getHandle']>,
): Promise<SubscriptionState> {
  try {
    return await queryState(temporal, handle);
  } catch (refused) {
    if (!hasGrpcCode(refused, FAILED_PRECONDITION)) throw refused;
    const input = await probed(temporal, () => startInputOfUnchanged(temporal, handle));
    if (!input) throw refused;
    return input;
  }
}

/**
 * The state a workflow was started with, while its history shows no task started (the start event, at most
 * its first task scheduled): nothing has changed it. Null once a task has run, or for an input of another shape.
 */
async function startInputOfUnchanged(
  temporal: Client,
  handle: ReturnType<Client['workflow']['getHandle']>,
): Promise<SubscriptionState | null> {
  const history = await handle.fetchHistory();
  if ((history.events?.length ?? 0) > 2) return null;
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const input = await decodeFromPayloadsAtIndex<SubscriptionWorkflowInput>(
    temporal.options.loadedDataConverter,
    0,
    started?.input?.payloads,
  );
  if ('created' in input) return input.created;
  if ('continued' in input) return input.continued;
  return null;
}
