import type { Db, Tx } from '../db/prisma';
import { columnOfField, jsonRecord, queryRows, type AnyTx, type Statement } from '../db/sql';
import { findPricesForUse } from '../catalog/price.service';
import type { PriceObject } from '../catalog/price.schemas';
import type { SubscriptionItem } from '../generated/prisma/client';
import { ApiError } from '../http/errors';
import { recordEvent } from '../lib/events';
import { insertEventsSql, notifyEventsSql } from '../lib/event.records';
import { insertWorkflowStartsSql } from '../temporal/workflow-start.records';
import { newId } from '../lib/ids';
import { currentTime } from '../lib/clock-time';
import { startColumns, type WorkflowStart } from '../temporal/workflow-starts';
import { type ChangeCause, type SubscriptionItemState, type SubscriptionState } from './subscription-machine';
import {
  getSubscriptionObject,
  subscriptionEventData,
  subscriptionRowColumns,
  subscriptionRowRecord,
  subscriptionRowSql,
  subscriptionVersionRow,
  toSubscriptionObject,
  writeSubscriptionRow,
  type SubscriptionWithItems,
} from './subscription.records';
import type { SubscriptionObject } from './subscription.schemas';

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
  event: { type: SubscriptionEventType; cause?: ChangeCause } | null;
}

function itemColumns(item: SubscriptionItemState, position: number) {
  return { priceId: item.priceId, quantity: item.quantity, position, taxRateIds: item.taxRateIds };
}

/** Locks (FOR SHARE) prices the subscription starts to use, so a concurrent DELETE /prices cannot remove them; 404 names the item. */
async function lockNewPrices(tx: Tx, state: SubscriptionState, knownPriceIds: Set<string>): Promise<void> {
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
  return prisma.$transaction((tx) => persistSubscriptionInTx(tx, input));
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
export async function persistSubscriptionInTx(
  tx: Tx,
  { state, event }: PersistSubscriptionInput,
): Promise<SubscriptionObject> {
  const [current] = await tx.$queryRaw<{ workflow_version: number }[]>`
    SELECT workflow_version FROM subscriptions WHERE id = ${state.id} FOR UPDATE`;
  if (current && current.workflow_version >= state.version) return getSubscriptionObject(tx, state.accountId, state.id);
  const existingItems = current ? await tx.subscriptionItem.findMany({ where: { subscriptionId: state.id } }) : [];
  await lockNewPrices(tx, state, new Set(existingItems.map((item) => item.priceId)));
  // Locked at that version just above: written whatever versions the workflow skipped since.
  await writeSubscriptionRow(tx, state, current ? { overVersion: current.workflow_version } : { insert: true });
  if (current)
    await tx.subscriptionItem.deleteMany({
      where: { subscriptionId: state.id, id: { notIn: state.items.map((item) => item.id) } },
    });
  for (const [position, item] of state.items.entries()) {
    const columns = itemColumns(item, position);
    await tx.subscriptionItem.upsert({
      where: { id: item.id },
      create: {
        id: item.id,
        accountId: state.accountId,
        subscriptionId: state.id,
        createdAt: currentTime(),
        ...columns,
      },
      update: columns,
    });
  }
  const object = await getSubscriptionObject(tx, state.accountId, state.id);
  if (event) await recordEvent(tx, state.accountId, event.type, subscriptionEventData(object, event.cause));
  return object;
}

const ITEM_FIELDS = [
  'id',
  'accountId',
  'subscriptionId',
  'priceId',
  'quantity',
  'position',
  'taxRateIds',
  'createdAt',
] as const satisfies (keyof SubscriptionItem)[];

const columnList = (fields: readonly string[]) => fields.map(columnOfField).join(', ');
/** `fields` of a row as JSON for jsonb_populate_record (jsonRecord). */
function recordJson<Row>(row: Row, fields: readonly (keyof Row & string)[]): Record<string, unknown> {
  return jsonRecord(Object.fromEntries(fields.map((field) => [field, row[field]])));
}

/**
 * A new subscription in one statement (about 0.1 ms of CPU against some 10 Prisma statements in a
 * transaction): the row, its items, subscription.created (with the row's updated_ms, set by its
 * trigger) and the workflow_starts row, only while every price is as the checks read it
 * (same updated_ms), locked FOR SHARE as lockNewPrices does; no row answered otherwise.
 */
const INSERT_SUBSCRIPTION: Statement = {
  name: 'subscription_insert',
  text: `WITH locked AS (
      SELECT p.id FROM prices p JOIN unnest($3::text[], $4::bigint[]) AS v(id, updated_ms) ON p.id = v.id
      WHERE p.account_id = $2 AND p.updated_ms = v.updated_ms FOR SHARE OF p
    ), sub AS (
      ${subscriptionRowSql({ insert: { record: '$1', when: '(SELECT count(*) FROM locked) = cardinality($3::text[])' } })}
    ), items AS (
      INSERT INTO subscription_items (${columnList(ITEM_FIELDS)})
      SELECT ${columnList(ITEM_FIELDS)} FROM jsonb_populate_recordset(NULL::subscription_items, $5::jsonb) WHERE EXISTS (SELECT FROM sub)
    ), event AS (
      ${insertEventsSql(`SELECT $6, $2, 'subscription.created', jsonb_set($7::jsonb, '{updated_ms}', to_jsonb(sub.updated_ms)), $8::timestamptz FROM sub`)}
    ), start AS (
      ${insertWorkflowStartsSql('SELECT $9, $2, $10, $11, $12::jsonb, $13::jsonb FROM sub WHERE $9::text IS NOT NULL')}
    )
    SELECT sub.updated_ms::text AS "updatedMs", ${notifyEventsSql('event')} AS notified FROM sub`,
};

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
  const [written] = await queryRows<{ updatedMs: string }>(prisma, INSERT_SUBSCRIPTION, values);
  return written ? { ...object, updated_ms: Number(written.updatedMs) } : null;
}

/** insertSubscription in the caller's transaction, without the workflow's start (the caller records it); with the row written. */
export async function insertSubscriptionInTx(
  tx: AnyTx,
  state: SubscriptionState,
  prices: PriceObject[],
): Promise<{ object: SubscriptionObject; row: SubscriptionWithItems; eventId: string } | null> {
  const { values, object, row } = newSubscription(state, prices, null);
  const [written] = await queryRows<{ updatedMs: string }>(tx, INSERT_SUBSCRIPTION, values);
  return written
    ? { object: { ...object, updated_ms: Number(written.updatedMs) }, row, eventId: values[5] as string }
    : null;
}

const SET_CREATED_EVENT_INVOICE: Statement = {
  name: 'subscription_created_event_invoice',
  text: `UPDATE events SET data = jsonb_set(data, '{latest_invoice}', to_jsonb($1::text)) WHERE id = $2 AND account_id = $3 AND type = 'subscription.created'`,
};

/**
 * subscription.created of a subscription billed at once names its first invoice, made in the same
 * transaction just after the row (the contract: `latest_invoice`, the most recent invoice). The event
 * is still uncommitted, so no receiver sees it without.
 */
export async function setCreatedEventInvoice(
  tx: AnyTx,
  accountId: string,
  eventId: string,
  invoiceId: string,
): Promise<void> {
  await queryRows(tx, SET_CREATED_EVENT_INVOICE, [invoiceId, eventId, accountId]);
}

/**
 * The creation's first period billed (its invoice paid by the API), written over the row's version it
 * follows, with subscription.updated, in one statement, as the workflow's persistSubscription would
 * write that state; and the recorded start of the workflow takes that state as its input, so that the
 * workflow has nothing to do until the next period. Nothing is written when the row is no longer at
 * the previous version (the workflow wrote it first).
 */
const RECORD_FIRST_PERIOD: Statement = {
  name: 'subscription_first_period_billed',
  text: `WITH sub AS (
      ${subscriptionRowSql({ update: { record: '$1', id: '$2', accountId: '$3', version: '$4' } })}
    ), event AS (
      ${insertEventsSql(`SELECT $5, $3, 'subscription.updated', jsonb_set($6::jsonb, '{updated_ms}', to_jsonb(sub.updated_ms)), $7::timestamptz FROM sub`)}
    ), start AS (
      UPDATE workflow_starts SET args = $8::jsonb WHERE workflow_id = $9 AND EXISTS (SELECT FROM sub)
    )
    SELECT sub.updated_ms::text AS "updatedMs", ${notifyEventsSql('event')} AS notified FROM sub`,
};

/**
 * Writes `state` (the created row's next version, its first period billed) over `written` with its
 * event and the start's new input, as RECORD_FIRST_PERIOD says; answers its object, or null when
 * nothing was written.
 */
export async function recordFirstPeriodBilled(
  prisma: Db,
  written: SubscriptionWithItems,
  state: SubscriptionState,
  prices: PriceObject[],
  start: WorkflowStart,
): Promise<SubscriptionObject | null> {
  const version = subscriptionVersionRow(state);
  const row: SubscriptionWithItems = { ...written, ...version };
  const object = toSubscriptionObject(row, new Map(prices.map((price) => [price.id, price])));
  const ws = startColumns(start);
  const [updated] = await queryRows<{ updatedMs: string }>(prisma, RECORD_FIRST_PERIOD, [
    subscriptionRowRecord(version),
    state.id,
    state.accountId,
    state.version - 1,
    newId('event'),
    JSON.stringify(subscriptionEventData(object)),
    currentTime().toISOString(),
    ws.args,
    ws.workflowId,
  ]);
  return updated ? { ...object, updated_ms: Number(updated.updatedMs) } : null;
}

/** INSERT_SUBSCRIPTION's values, and the object it writes but for its `updated_ms` (the row's trigger sets it). */
function newSubscription(state: SubscriptionState, prices: PriceObject[], start: WorkflowStart | null) {
  const now = currentTime();
  const row: SubscriptionWithItems = {
    id: state.id,
    accountId: state.accountId,
    customerId: state.customerId,
    createdAt: new Date(state.createdAt),
    // As Prisma's @updatedAt sets it: the wall clock, not a test clock's.
    updatedAt: new Date(),
    updatedMs: 0n,
    ...subscriptionRowColumns(state),
    items: state.items.map((item, position) => ({
      id: item.id,
      accountId: state.accountId,
      subscriptionId: state.id,
      createdAt: now,
      ...itemColumns(item, position),
    })),
  };
  const byId = new Map(prices.map((price) => [price.id, price]));
  const object = toSubscriptionObject(row, byId);
  const ws = start ? startColumns(start) : null;
  const values = [
    subscriptionRowRecord(row),
    state.accountId,
    [...byId.keys()],
    [...byId.values()].map((price) => String(price.updated_ms)),
    JSON.stringify(row.items.map((item) => recordJson(item, ITEM_FIELDS))),
    newId('event'),
    JSON.stringify(subscriptionEventData(object)),
    now.toISOString(),
    ws?.workflowId ?? null,
    ws?.workflowType ?? null,
    ws?.taskQueue ?? null,
    ws?.args ?? null,
    ws?.options ?? null,
  ];
  return { values, object, row };
}
