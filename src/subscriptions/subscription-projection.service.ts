import type { Db, Tx } from '../db/prisma';
import { findPricesForUse } from '../catalog/price.service';
import { ApiError } from '../http/errors';
import { recordEvent } from '../lib/events';
import { currentTime } from '../lib/clock-time';
import type { ChangeCause, SubscriptionState } from './subscription-machine';
import { getSubscriptionObject, subscriptionEventData } from './subscription.records';
import type { SubscriptionObject } from './subscription.schemas';

/**
 * The subscriptions row is a projection of the workflow's state (the workflow owns the truth). The
 * workflow writes it, with the event of the change, through persistSubscription.
 */
export type SubscriptionEventType =
  | 'subscription.created'
  | 'subscription.updated'
  | 'subscription.canceled'
  | 'subscription.paused'
  | 'subscription.resumed';

export interface PersistSubscriptionInput {
  state: SubscriptionState;
  event: { type: SubscriptionEventType; cause?: ChangeCause } | null;
}

function rowColumns(state: SubscriptionState) {
  const at = (ms: number | null) => (ms === null ? null : new Date(ms));
  return {
    status: state.status,
    collectionMethod: state.collectionMethod,
    currency: state.currency,
    interval: state.interval,
    intervalCount: state.intervalCount,
    billingCycleAnchor: new Date(state.anchor),
    startDate: new Date(state.startDate),
    startBillingDate: at(state.startBillingDate),
    endDate: at(state.endDate),
    trialStart: at(state.trialStart),
    trialEnd: at(state.trialEnd),
    currentPeriodStart: at(state.currentPeriodStart),
    currentPeriodEnd: at(state.currentPeriodEnd),
    cancelAt: at(state.cancelAt),
    cancelAtPeriodEnd: state.cancelAtPeriodEnd,
    canceledAt: at(state.canceledAt),
    endedAt: at(state.endedAt),
    pausedAt: at(state.pausedAt),
    latestInvoiceId: state.latestInvoiceId,
    defaultPaymentMethodId: state.defaultPaymentMethodId,
    workflowVersion: state.version,
  };
}

/** Locks (FOR SHARE) prices the subscription starts to use, so a concurrent DELETE /prices cannot remove them; 404 names the item. */
async function lockNewPrices(tx: Tx, state: SubscriptionState, knownPriceIds: Set<string>): Promise<void> {
  for (const [index, item] of state.items.entries()) {
    if (knownPriceIds.has(item.priceId)) continue;
    try {
      await findPricesForUse(tx, state.accountId, [item.priceId]);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) throw new ApiError('not_found', error.code, error.message, `items.${index}.price`);
      throw error;
    }
  }
}

/**
 * Writes the workflow's state to its projection (the subscriptions row and its items) and the
 * event of the change, in one transaction. A write whose version the row already has is a retry:
 * it changes nothing and answers the row, so events are written once. A 4xx ApiError when a new
 * item's price cannot be used.
 */
export async function persistSubscription(prisma: Db, input: PersistSubscriptionInput): Promise<SubscriptionObject> {
  return prisma.$transaction((tx) => persistSubscriptionInTx(tx, input));
}

/**
 * The row's columns of `state`, in the caller's transaction, with no event: for a state whose items
 * the row already has and that only the writer of its previous version can know (the API's creation,
 * which adds the first invoice and its period to the version it just wrote).
 */
export async function projectColumnsInTx(tx: Tx, state: SubscriptionState): Promise<void> {
  await tx.subscription.update({ where: { id: state.id, workflowVersion: state.version - 1 }, data: rowColumns(state) });
}

/** persistSubscription inside the caller's transaction (the API's creation writes the row with what it starts). */
export async function persistSubscriptionInTx(tx: Tx, { state, event }: PersistSubscriptionInput): Promise<SubscriptionObject> {
  const [current] = await tx.$queryRaw<{ workflow_version: number }[]>`
    SELECT workflow_version FROM subscriptions WHERE id = ${state.id} FOR UPDATE`;
  if (current && current.workflow_version >= state.version) return getSubscriptionObject(tx, state.accountId, state.id);
  const existingItems = current ? await tx.subscriptionItem.findMany({ where: { subscriptionId: state.id } }) : [];
  await lockNewPrices(tx, state, new Set(existingItems.map((item) => item.priceId)));
  if (current) {
    await tx.subscription.update({ where: { id: state.id }, data: rowColumns(state) });
  } else {
    await tx.subscription.create({
      data: { id: state.id, accountId: state.accountId, customerId: state.customerId, createdAt: new Date(state.createdAt), ...rowColumns(state) },
    });
  }
  if (current) await tx.subscriptionItem.deleteMany({ where: { subscriptionId: state.id, id: { notIn: state.items.map((item) => item.id) } } });
  for (const [position, item] of state.items.entries()) {
    const columns = { priceId: item.priceId, quantity: item.quantity, position, taxRateIds: item.taxRateIds };
    await tx.subscriptionItem.upsert({
      where: { id: item.id },
      create: { id: item.id, accountId: state.accountId, subscriptionId: state.id, createdAt: currentTime(), ...columns },
      update: columns,
    });
  }
  const object = await getSubscriptionObject(tx, state.accountId, state.id);
  if (event) await recordEvent(tx, state.accountId, event.type, subscriptionEventData(object, event.cause));
  return object;
}
