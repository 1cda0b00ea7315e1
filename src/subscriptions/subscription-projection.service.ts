import type { Db } from '../db/prisma';
import type { AnyTx, Queryable } from '../db/sql';
import { sqlTransaction } from '../db/sql-transaction';
import type { SubscriptionItem } from '../generated/prisma/client';
import { findPricesForUse } from '../catalog';
import { redeemCoupon } from '../coupons';
import type { PriceObject } from '../catalog';
import { ApiError, orNotFound } from '../http/errors';
import { currentOrigin, recordEvent } from '../lib/events';
import { withOrigin, type EventOrigin } from '../lib/event-origin';
import { newId } from '../lib/ids';
import { currentTime } from '../lib/clock-time';
import { toUnixSeconds } from '../lib/time';
import { startColumns, type WorkflowStart } from '../temporal';
import { type ChangeCause, type SubscriptionState } from './subscription-machine';
import {
  deleteItemsBut,
  insertSubscriptionRows,
  ITEM_FIELDS,
  lockSubscriptionVersion,
  readSubscriptionItems,
  readSubscriptionObject,
  recordJson,
  subscriptionEventData,
  subscriptionRowColumns,
  subscriptionRowRecord,
  subscriptionVersionRow,
  toSubscriptionObject,
  upsertItems,
  writeFirstPeriodBilled,
  writeSubscriptionRow,
  type SubscriptionWithItems,
} from './subscription.records';
import type { SubscriptionObject } from './subscription.schemas';

/** A subscription of the account as the API shows it, or 404 (also for another account's subscription). */
export async function getSubscriptionObject(db: Queryable, accountId: string, id: string): Promise<SubscriptionObject> {
  return orNotFound(await readSubscriptionObject(db, accountId, id), 'subscription', id);
}

/**
 * The subscriptions row is a projection of the workflow's state (the workflow owns the truth). The
 * workflow writes it, with the event of the change, through persistSubscription; the API's creation
 * writes its first versions here too. Every one of these writes the row with subscription.records.ts's
 * one write (subscriptionRowSql: by itself, or as a step of a statement that writes what goes with it).
 */
export type SubscriptionEventType =
  | 'subscription.created'
  | 'subscription.updated'
  | 'subscription.canceled'
  | 'subscription.paused'
  | 'subscription.resumed';

export interface PersistSubscriptionInput {
  state: SubscriptionState;
  /** `origin`: the hosted page the change was asked on (docs/decisions.md §38). */
  event: { type: SubscriptionEventType; cause?: ChangeCause; origin?: EventOrigin } | null;
  /**
   * A coupon redeemed on the subscription with this version, in its transaction (docs/decisions.md §37):
   * a retried write finds the version written and redeems nothing again; a refusal writes nothing.
   */
  coupon?: string;
  /**
   * The period this version moved into without an invoice (docs/decisions.md §7): written with it,
   * after its event, as subscription.period_not_invoiced (bounds in ms; the refusal's code and message).
   */
  notInvoiced?: NotInvoicedPeriod;
}

export interface NotInvoicedPeriod {
  periodStart: number;
  periodEnd: number;
  code: string;
  message: string;
}

/** The item rows of `state`, in its order; `createdAt` is a new row's (an existing row keeps its own). */
function itemRows(state: SubscriptionState, createdAt: Date): SubscriptionItem[] {
  return state.items.map((item, position) => ({
    id: item.id,
    accountId: state.accountId,
    subscriptionId: state.id,
    priceId: item.priceId,
    quantity: item.quantity,
    position,
    taxRateIds: item.taxRateIds,
    createdAt,
  }));
}

/** Whether the stored item already is `row` (a renewal's write changes no item). */
function itemUnchanged(stored: SubscriptionItem | undefined, row: SubscriptionItem): boolean {
  return (
    stored !== undefined &&
    stored.subscriptionId === row.subscriptionId &&
    stored.priceId === row.priceId &&
    stored.quantity === row.quantity &&
    stored.position === row.position &&
    stored.taxRateIds.length === row.taxRateIds.length &&
    stored.taxRateIds.every((id, index) => id === row.taxRateIds[index])
  );
}

/** Locks (FOR SHARE) prices the subscription starts to use, so a concurrent DELETE /prices cannot remove them; 404 names the item. */
async function lockNewPrices(tx: AnyTx, state: SubscriptionState, knownPriceIds: Set<string>): Promise<void> {
  for (const [index, item] of state.items.entries()) {
    if (knownPriceIds.has(item.priceId)) continue;
    try {
      await findPricesForUse(tx, state.accountId, [item.priceId]);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404)
        throw new ApiError('not_found', error.code, error.message, `items.${index}.price`);
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
  return sqlTransaction(prisma, (tx) => persistSubscriptionInTx(tx, input));
}

/**
 * The row's columns of `state`, in the caller's transaction, with no event: for a state whose items
 * the row already has and that only the writer of its previous version can know (the API's creation,
 * which adds the first invoice and its period to the version it just wrote).
 */
export async function projectColumnsInTx(tx: AnyTx, state: SubscriptionState): Promise<void> {
  if (!(await writeSubscriptionRow(tx, state, { overVersion: state.version - 1 })))
    throw new Error(`Subscription ${state.id} is not at version ${state.version - 1}; its projection was not written.`);
}

/** persistSubscription inside the caller's transaction (the API's creation writes the row with what it starts). */
export async function persistSubscriptionInTx(tx: AnyTx, input: PersistSubscriptionInput): Promise<SubscriptionObject> {
  return (await persistSubscriptionEventInTx(tx, input)).object;
}

/**
 * persistSubscriptionInTx, answering also the id of the event it wrote (null: none, or the version was
 * written already), for a creation that names its first invoice in subscription.created once it is made.
 */
export async function persistSubscriptionEventInTx(
  tx: AnyTx,
  { state, event, coupon, notInvoiced }: PersistSubscriptionInput,
): Promise<{ object: SubscriptionObject; eventId: string | null }> {
  const currentVersion = await lockSubscriptionVersion(tx, state.id);
  if (currentVersion !== undefined && currentVersion >= state.version)
    return { object: await getSubscriptionObject(tx, state.accountId, state.id), eventId: null };
  const current = currentVersion === undefined ? undefined : { workflow_version: currentVersion };
  const existingItems = current ? await readSubscriptionItems(tx, state.id) : [];
  await lockNewPrices(tx, state, new Set(existingItems.map((item) => item.priceId)));
  // Locked at that version just above: written whatever versions the workflow skipped since.
  await writeSubscriptionRow(tx, state, current ? { overVersion: current.workflow_version } : { insert: true });
  const keptIds = state.items.map((item) => item.id);
  if (existingItems.some((item) => !keptIds.includes(item.id))) await deleteItemsBut(tx, state.id, keptIds);
  const stored = new Map(existingItems.map((item) => [item.id, item]));
  await upsertItems(
    tx,
    itemRows(state, currentTime()).filter((row) => !itemUnchanged(stored.get(row.id), row)),
  );
  if (coupon !== undefined)
    await redeemCoupon(tx, state.accountId, coupon, {
      customerId: state.customerId,
      subscriptionId: state.id,
      currency: state.currency,
    });
  const object = await getSubscriptionObject(tx, state.accountId, state.id);
  const written = event
    ? await recordEvent(
        tx,
        state.accountId,
        event.type,
        withOrigin(subscriptionEventData(object, event.cause), event.origin),
      )
    : null;
  if (notInvoiced)
    await recordEvent(tx, state.accountId, 'subscription.period_not_invoiced', {
      ...subscriptionEventData(object),
      period_start: toUnixSeconds(new Date(notInvoiced.periodStart)),
      period_end: toUnixSeconds(new Date(notInvoiced.periodEnd)),
      failure_code: notInvoiced.code,
      failure_message: notInvoiced.message,
    });
  return { object, eventId: written?.id ?? null };
}

/**
 * Writes a new subscription (version 1, nothing billed yet) with subscription.created and the start
 * of its workflow, as persistSubscriptionInTx and recordWorkflowStart would in a transaction, and
 * answers its object built from what was written; null, with nothing written, when a price is gone
 * or changed since `prices` (the request's, in item order) were read: persistSubscriptionInTx then
 * judges it.
 */
export async function insertSubscription(
  prisma: Db,
  state: SubscriptionState,
  prices: PriceObject[],
  start: WorkflowStart,
): Promise<SubscriptionObject | null> {
  const { values, object } = newSubscription(state, prices, start);
  const updatedMs = await insertSubscriptionRows(prisma, values);
  return updatedMs === null ? null : { ...object, updated_ms: Number(updatedMs) };
}

/** insertSubscription in the caller's transaction, without the workflow's start (the caller records it); with the row written. */
export async function insertSubscriptionInTx(
  tx: AnyTx,
  state: SubscriptionState,
  prices: PriceObject[],
): Promise<{ object: SubscriptionObject; row: SubscriptionWithItems; eventId: string } | null> {
  const { values, object, row } = newSubscription(state, prices, null);
  const updatedMs = await insertSubscriptionRows(tx, values);
  return updatedMs === null
    ? null
    : { object: { ...object, updated_ms: Number(updatedMs) }, row, eventId: values[5] as string };
}

/**
 * insertSubscriptionInTx of a subscription billed at once, written already at `invoiced` (its next version, its first
 * invoice `invoiced.latestInvoiceId` named before that invoice is made) with the start of its workflow from there:
 * one write where the row was inserted, then updated, its event updated and its start inserted (docs/performance.md,
 * "Eighteenth round"). subscription.created tells of `state` naming that invoice, as it did, its `updated_ms` the
 * row's less one (the version before).
 */
export async function insertInvoicedSubscriptionInTx(
  tx: AnyTx,
  state: SubscriptionState,
  invoiced: SubscriptionState,
  prices: PriceObject[],
  start: WorkflowStart,
): Promise<{ row: SubscriptionWithItems } | null> {
  const { values, row } = newSubscription(state, prices, start, invoiced);
  const updatedMs = await insertSubscriptionRows(tx, values);
  return updatedMs === null ? null : { row };
}

/**
 * Writes `state` (the created row's next version, its first period billed) over `written` with its
 * event and the start's new input, as RECORD_FIRST_PERIOD says (in the transaction settling the first
 * charge); answers its object, or null when nothing was written.
 */
export async function recordFirstPeriodBilled(
  db: Db | AnyTx,
  written: SubscriptionWithItems,
  state: SubscriptionState,
  prices: PriceObject[],
  start: WorkflowStart,
): Promise<SubscriptionObject | null> {
  const version = subscriptionVersionRow(state);
  const row: SubscriptionWithItems = { ...written, ...version };
  const object = toSubscriptionObject(row, new Map(prices.map((price) => [price.id, price])));
  const ws = startColumns(start);
  const updatedMs = await writeFirstPeriodBilled(db, [
    subscriptionRowRecord(version),
    state.id,
    state.accountId,
    state.version - 1,
    newId('event'),
    JSON.stringify(withOrigin(subscriptionEventData(object), currentOrigin())),
    currentTime().toISOString(),
    ws.args,
    ws.workflowId,
  ]);
  return updatedMs === null ? null : { ...object, updated_ms: Number(updatedMs) };
}

/**
 * INSERT_SUBSCRIPTION's values, and the object it writes but for its `updated_ms` (the row's trigger sets it).
 * With `invoiced`, the row is written at that version and the event tells of `state` naming its invoice.
 */
function newSubscription(
  state: SubscriptionState,
  prices: PriceObject[],
  start: WorkflowStart | null,
  invoiced?: SubscriptionState,
) {
  const now = currentTime();
  const created: SubscriptionWithItems = {
    id: state.id,
    accountId: state.accountId,
    customerId: state.customerId,
    createdAt: new Date(state.createdAt),
    // As Prisma's @updatedAt sets it: the wall clock, not a test clock's.
    updatedAt: new Date(),
    updatedMs: 0n,
    // A new row has no discount: a coupon at creation is redeemed after it is written (docs/decisions.md §37).
    discount: null,
    // Written by an ending's final invoice only (docs/decisions.md §43).
    usageClosedAt: null,
    ...subscriptionRowColumns(state),
    items: itemRows(state, now),
  };
  const row = invoiced ? { ...created, ...subscriptionRowColumns(invoiced) } : created;
  const byId = new Map(prices.map((price) => [price.id, price]));
  const object = toSubscriptionObject(created, byId);
  const eventObject = invoiced ? { ...object, latest_invoice: invoiced.latestInvoiceId } : object;
  const ws = start ? startColumns(start) : null;
  const values = [
    subscriptionRowRecord(row),
    state.accountId,
    [...byId.keys()],
    [...byId.values()].map((price) => String(price.updated_ms)),
    JSON.stringify(row.items.map((item) => recordJson(item, ITEM_FIELDS))),
    newId('event'),
    JSON.stringify(withOrigin(subscriptionEventData(eventObject), currentOrigin())),
    now.toISOString(),
    ws?.workflowId ?? null,
    ws?.workflowType ?? null,
    ws?.taskQueue ?? null,
    ws?.args ?? null,
    ws?.options ?? null,
    invoiced ? 1 : 0,
  ];
  return { values, object, row };
}
