import { COLLECTION_METHODS, API_SUBSCRIPTION_STATUSES } from './subscription-machine';
import { columnValue } from '../lib/columns';
import type { Subscription, SubscriptionItem } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { toPriceObject } from '../catalog/records';
import type { PriceObject } from '../catalog/price.schemas';
import { notFound } from '../http/errors';
import { toUnixSeconds } from '../lib/time';
import { webhookStatus, type ChangeCause } from './subscription-machine';
import type { SubscriptionObject } from './subscription.schemas';
import { updatedMsOf } from '../lib/object-version';

export type SubscriptionWithItems = Subscription & { items: SubscriptionItem[] };

function orderedItems(items: SubscriptionItem[]): SubscriptionItem[] {
  return [...items].sort((a, b) => a.position - b.position);
}

export function toSubscriptionObject(row: SubscriptionWithItems, prices: Map<string, PriceObject>): SubscriptionObject {
  const items = orderedItems(row.items).map((item) => ({
    id: item.id,
    object: 'subscription_item' as const,
    price: prices.get(item.priceId)!,
    quantity: item.quantity,
    tax_rates: item.taxRateIds,
    created: toUnixSeconds(item.createdAt),
    subscription: row.id,
  }));
  return {
    id: row.id,
    object: 'subscription',
    billing_cycle_anchor: toUnixSeconds(row.billingCycleAnchor),
    cancel_at: toUnixSeconds(row.cancelAt),
    cancel_at_period_end: row.cancelAtPeriodEnd,
    canceled_at: toUnixSeconds(row.canceledAt),
    collection_method: columnValue(COLLECTION_METHODS, row.collectionMethod, 'subscriptions.collection_method'),
    created: toUnixSeconds(row.createdAt),
    updated_ms: updatedMsOf(row),
    currency: row.currency,
    customer: row.customerId,
    ended_at: toUnixSeconds(row.endedAt),
    items: { data: items, total_count: items.length },
    latest_invoice: row.latestInvoiceId,
    start_date: toUnixSeconds(row.startDate),
    status: columnValue(API_SUBSCRIPTION_STATUSES, row.status, 'subscriptions.status'),
    trial_end: toUnixSeconds(row.trialEnd),
    trial_start: toUnixSeconds(row.trialStart),
    current_period_start: toUnixSeconds(row.currentPeriodStart),
    current_period_end: toUnixSeconds(row.currentPeriodEnd),
    end_date: toUnixSeconds(row.endDate),
    start_billing_date: toUnixSeconds(row.startBillingDate),
    default_payment_method: row.defaultPaymentMethodId,
    paused_at: toUnixSeconds(row.pausedAt),
  };
}

/** API objects for rows of one account, with their items' prices read in one query. */
export async function toSubscriptionObjects(
  db: Db | Tx,
  accountId: string,
  rows: SubscriptionWithItems[],
): Promise<SubscriptionObject[]> {
  const priceIds = [...new Set(rows.flatMap((row) => row.items.map((item) => item.priceId)))];
  const prices = priceIds.length === 0 ? [] : await db.price.findMany({ where: { accountId, id: { in: priceIds } } });
  const byId = new Map(prices.map((price) => [price.id, toPriceObject(price)]));
  return rows.map((row) => toSubscriptionObject(row, byId));
}

/** A subscription of the account, or 404 (also for another account's subscription). */
export async function findSubscriptionRow(db: Db | Tx, accountId: string, id: string): Promise<SubscriptionWithItems> {
  const row = await db.subscription.findFirst({ where: { id, accountId }, include: { items: true } });
  if (!row) throw notFound('subscription', id);
  return row;
}

export async function getSubscriptionObject(db: Db | Tx, accountId: string, id: string): Promise<SubscriptionObject> {
  const [object] = await toSubscriptionObjects(db, accountId, [await findSubscriptionRow(db, accountId, id)]);
  return object!;
}

/**
 * The creation's answer: the contract lists the statuses a creation answers (active, scheduled,
 * canceled, expired, trialing), so a subscription whose first charge failed is answered `active`
 * there, and `past_due` by every read after it (decisions.md §7).
 */
export function creationAnswer(object: SubscriptionObject): SubscriptionObject {
  return object.status === 'past_due' ? { ...object, status: 'active' } : object;
}

/**
 * `data` of a subscription.* event: the object with the webhook status (active, canceled, paused),
 * items as a list, and `reason`/`initiated_by` only on canceled, paused and resumed (spec).
 */
export function subscriptionEventData(object: SubscriptionObject, cause?: ChangeCause) {
  return {
    ...object,
    status: webhookStatus(object.status),
    items: { object: 'list' as const, ...object.items },
    ...(cause ? { reason: cause.reason, initiated_by: cause.initiatedBy } : {}),
  };
}
