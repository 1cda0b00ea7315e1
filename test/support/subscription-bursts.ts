import fc from 'fast-check';
import type { Client } from '@temporalio/client';
import type { Db } from '../../src/db/prisma';
import { apiStatus, webhookStatus } from '../../src/subscriptions/subscription-machine';
import { stateQuery, subscriptionWorkflowId, type SubscriptionStateView } from '../../workflows/subscription-messages';
import { eventsOf, type ApiClient, type ApiResponse } from './harness';
import { expectStatus } from './subscriptions';

/**
 * Several requests sent at once to one subscription, then the readers compared (decisions.md §7,
 * "Concurrent changes"): the row, GET, the last event and the workflow's `state` query agree, each
 * 200 answers its own change (a version of its own), and each change has one event. Shared by the
 * dev-server and server-engine tests.
 */

export type Operation =
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'cancel_now' }
  | { kind: 'cancel_at_period_end'; spelling: 'delete' | 'patch' }
  | { kind: 'withdraw_period_end_cancel' }
  | { kind: 'quantity'; quantity: number }
  | { kind: 'add_item'; price: 0 | 1 };

export const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.constant({ kind: 'pause' as const }),
  fc.constant({ kind: 'resume' as const }),
  fc.constant({ kind: 'cancel_now' as const }),
  fc
    .constantFrom('delete' as const, 'patch' as const)
    .map((spelling) => ({ kind: 'cancel_at_period_end' as const, spelling })),
  fc.constant({ kind: 'withdraw_period_end_cancel' as const }),
  fc.integer({ min: 1, max: 9 }).map((quantity) => ({ kind: 'quantity' as const, quantity })),
  fc.constantFrom(0 as const, 1 as const).map((price) => ({ kind: 'add_item' as const, price })),
);

export interface BurstTarget {
  api: ApiClient;
  prisma: Db;
  temporal: Client;
  accountId: string;
  /** Two recurring prices of the subscription's cadence that add_item adds. */
  extraPrices: string[];
  /** The workflow's state once nothing runs and the row shows its version; null once it has ended. */
  settle(subscriptionId: string): Promise<SubscriptionStateView | null>;
}

function send(api: ApiClient, extraPrices: string[], id: string, itemId: string, op: Operation): Promise<ApiResponse> {
  switch (op.kind) {
    case 'pause':
      return api.post(`/subscriptions/${id}/pause`);
    case 'resume':
      return api.post(`/subscriptions/${id}/resume`);
    case 'cancel_now':
      return api.delete(`/subscriptions/${id}`);
    case 'cancel_at_period_end':
      return op.spelling === 'delete'
        ? api.delete(`/subscriptions/${id}?at_period_end=true`)
        : api.patch(`/subscriptions/${id}`, { cancel_at_period_end: true });
    case 'withdraw_period_end_cancel':
      return api.patch(`/subscriptions/${id}`, { cancel_at_period_end: false });
    case 'quantity':
      return api.patch(`/subscriptions/${id}`, { items: [{ id: itemId, quantity: op.quantity }] });
    case 'add_item':
      return api.patch(`/subscriptions/${id}`, { items: [{ price: extraPrices[op.price], quantity: 1 }] });
  }
}

/** What a reader compares: the fields any of the operations can move. */
function shape(object: {
  status: string;
  cancel_at_period_end: boolean;
  cancel_at: number | null;
  items: { data: { price: { id: string }; quantity: number }[] };
}) {
  return {
    status: object.status,
    cancel_at_period_end: object.cancel_at_period_end,
    cancel_at: object.cancel_at,
    items: object.items.data.map((item) => `${item.price.id} x${item.quantity}`).sort(),
  };
}

async function subscriptionEventsOf(target: BurstTarget, id: string) {
  return (await eventsOf(target.prisma, target.accountId)).filter(
    (event) => event.type.startsWith('subscription.') && (event.data as { id?: string }).id === id,
  );
}

/** Sends `operations` at once to the subscription `created` (as POST answered it) and checks what every reader shows afterwards. */
export async function burst(
  target: BurstTarget,
  created: { id: string; updated_ms: number; items: { data: { id: string }[] } },
  operations: Operation[],
): Promise<void> {
  const { api, prisma } = target;
  const id = created.id;
  const itemId = created.items.data[0]!.id;
  const eventsBefore = (await subscriptionEventsOf(target, id)).length;

  const answers = await Promise.all(operations.map((op) => send(api, target.extraPrices, id, itemId, op)));
  for (const answer of answers) {
    // A refusal is a 4xx with a reason, never a 5xx; the state decides which ones pass.
    expect([200, 400, 409]).toContain(answer.status);
  }
  const applied = answers.filter((answer) => answer.status === 200);

  const state = await target.settle(id);
  const get = expectStatus(await api.get(`/subscriptions/${id}`), 200, 'GET');
  const row = await prisma.subscription.findUniqueOrThrow({ where: { id } });
  const events = await subscriptionEventsOf(target, id);

  // One event per change: each 200 answered the version its change wrote, or, for a change that changed
  // nothing (a withdrawal of a period-end cancel never asked for), the version it found, with no event.
  const versions = new Set(applied.map((answer) => answer.body.updated_ms as number));
  versions.delete(created.updated_ms);
  expect(events.length - eventsBefore).toBe(versions.size);
  // The newest answer is what GET shows.
  if (applied.length > 0) {
    const newest = applied.reduce((a, b) => ((a.body.updated_ms as number) > (b.body.updated_ms as number) ? a : b));
    expect(shape(newest.body)).toEqual(shape(get));
  }
  // The row, GET and the last event agree.
  expect(get.status).toBe(row.status);
  const last = events.at(-1)!.data as Parameters<typeof shape>[0];
  expect(shape(last)).toEqual({ ...shape(get), status: webhookStatus(get.status) });

  if (get.status === 'canceled') {
    // Ended: the workflow completed, with exactly one subscription.canceled.
    expect(state).toBeNull();
    expect(events.filter((event) => event.type === 'subscription.canceled')).toHaveLength(1);
    expect((await target.temporal.workflow.getHandle(subscriptionWorkflowId(id)).describe()).status.name).toBe(
      'COMPLETED',
    );
  } else {
    // Running: the workflow's own state says the same.
    const view = state ?? (await target.temporal.workflow.getHandle(subscriptionWorkflowId(id)).query(stateQuery));
    expect(apiStatus(view)).toBe(get.status);
    expect(view.version).toBe(row.workflowVersion);
    expect(view.cancelAtPeriodEnd).toBe(get.cancel_at_period_end);
    expect(view.items.map((item) => `${item.priceId} x${item.quantity}`).sort()).toEqual(shape(get).items);
  }
}
