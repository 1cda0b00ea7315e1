import { isGrpcServiceError, type Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { SubscriptionState } from './subscription-machine';

/** Where a workflow's history stands: its run and how many events it holds. */
export interface HistoryMark {
  runId: string;
  historyLength: number;
}

/** Whether two marks name the same run at the same history length: nothing has reached the workflow between them. */
export function sameHistory(a: HistoryMark, b: HistoryMark): boolean {
  return a.runId === b.runId && a.historyLength === b.historyLength;
}

/** gRPC NOT_FOUND: no workflow of that id (never started, or past the namespace's retention). */
const NOT_FOUND = 5;

/**
 * The workflow's current run and its history's length, answered by Temporal's server alone (no worker): the
 * describe call without decoding its memo, summary or search attributes, which this read does not use.
 */
export async function historyMark(temporal: Client, workflowId: string): Promise<HistoryMark | null> {
  try {
    const { workflowExecutionInfo: info } = await temporal.workflowService.describeWorkflowExecution({
      namespace: temporal.options.namespace,
      execution: { workflowId },
    });
    const runId = info?.execution?.runId;
    const historyLength = Number(info?.historyLength ?? 0);
    // A server that does not count its history (none of ours) gives no mark: the state is then always asked.
    return runId && historyLength > 0 ? { runId, historyLength } : null;
  } catch (error) {
    if (isGrpcServiceError(error) && error.code === NOT_FOUND)
      throw new WorkflowNotFoundError('', workflowId, undefined);
    throw error;
  }
}

/**
 * The states the `state` query last answered, by subscription, each with the history mark read before it was
 * asked (docs/decisions.md §25, "The upcoming invoice's state"). A workflow's state is a function of its history:
 * every change of it is a workflow task, which appends events, so a run whose history has the same length as when
 * the query was asked still holds the state it answered. Bounded, the least recently used dropped first.
 */
export class KnownStates {
  private readonly byId = new Map<string, { mark: HistoryMark; state: SubscriptionState }>();

  constructor(private readonly max: number) {}

  /** The state answered at this very mark, as a copy the caller may change; undefined when the history has moved. */
  at(subscriptionId: string, mark: HistoryMark): SubscriptionState | undefined {
    const known = this.byId.get(subscriptionId);
    if (!known || !sameHistory(known.mark, mark)) return undefined;
    this.byId.delete(subscriptionId);
    this.byId.set(subscriptionId, known);
    return structuredClone(known.state);
  }

  /** The state last kept for the subscription and the mark it holds at, as a copy; undefined when none is kept. */
  latest(subscriptionId: string): { mark: HistoryMark; state: SubscriptionState } | undefined {
    const known = this.byId.get(subscriptionId);
    return known && { mark: known.mark, state: structuredClone(known.state) };
  }

  /** Keeps the state the query answered after `mark` was read (the state holds at least that history). */
  remember(subscriptionId: string, mark: HistoryMark, state: SubscriptionState): void {
    this.byId.delete(subscriptionId);
    this.byId.set(subscriptionId, { mark, state: structuredClone(state) });
    if (this.byId.size > this.max) this.byId.delete(this.byId.keys().next().value as string);
  }
}
