import type { DiscountObject } from '../coupons';
import {
  COLLECTION_METHODS,
  API_SUBSCRIPTION_STATUSES,
  apiStatus,
  type SubscriptionState,
} from './subscription-machine';
import {
  columnOfField,
  execute,
  jsonObjectOf,
  jsonRecord,
  modelColumns,
  modelOfRow,
  queryModels,
  queryRows,
  selectList,
  setFromRecord,
  type AnyTx,
  type Queryable,
  type RowColumns,
  type Statement,
} from '../db/sql';
import { columnValue } from '../lib/columns';
import { Prisma, type Price, type Subscription, type SubscriptionItem, type TaxRate } from '../generated/prisma/client';
import { CUSTOMER_COLUMNS, type CustomerColumns } from '../customers';
import { PRICE_COLUMNS, TAX_RATE_COLUMNS, readPrices } from '../catalog';
import type { Db } from '../db/prisma';
import type { PriceObject } from '../catalog';
import { toUnixSeconds } from '../lib/time';
import { webhookStatus, type ChangeCause } from './subscription-machine';
import type { SubscriptionObject } from './subscription.schemas';
import type { AccountProfile } from '../accounts';
import { updatedMsOf } from '../lib/object-version';
import { insertEventsSql, notifyEventsSql } from '../lib/event.records';
import { insertWorkflowStartsSql } from '../temporal';

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
    discount: (row.discount as DiscountObject | null) ?? null,
    billing_thresholds: row.billingThresholdAmountGte === null ? null : { amount_gte: row.billingThresholdAmountGte },
  };
}

/** API objects for rows of one account, with their items' prices read in one query. */
export async function toSubscriptionObjects(
  db: Queryable,
  accountId: string,
  rows: SubscriptionWithItems[],
): Promise<SubscriptionObject[]> {
  const priceIds = [...new Set(rows.flatMap((row) => row.items.map((item) => item.priceId)))];
  const prices = priceIds.length === 0 ? [] : await readPrices(db, accountId, priceIds);
  const byId = new Map(prices.map((price) => [price.id, price]));
  return rows.map((row) => toSubscriptionObject(row, byId));
}

const SUBSCRIPTION_MODEL = modelColumns<Subscription>(Prisma.SubscriptionScalarFieldEnum, {
  bigint: ['updatedMs'],
  date: ['billingCycleAnchor', 'startDate', 'createdAt', 'updatedAt'],
  'date?': [
    'startBillingDate',
    'endDate',
    'trialStart',
    'trialEnd',
    'currentPeriodStart',
    'currentPeriodEnd',
    'cancelAt',
    'canceledAt',
    'endedAt',
    'pausedAt',
  ],
});
const ITEM_MODEL = modelColumns<SubscriptionItem>(Prisma.SubscriptionItemScalarFieldEnum, { date: ['createdAt'] });

// The row and its items in one prepared statement, where Prisma's findFirst with its include costs two
// statements and its client's work (the workflow reads it after every change it writes).
const SUBSCRIPTION_WITH_ITEMS: Statement = {
  name: 'subscription_with_items',
  text: `SELECT ${selectList(SUBSCRIPTION_MODEL, 's')},
    (SELECT coalesce(json_agg(${jsonObjectOf(ITEM_MODEL, 'i')} ORDER BY i.position), '[]') FROM subscription_items i WHERE i.subscription_id = s.id) AS items
    FROM subscriptions s WHERE s.id = $1 AND s.account_id = $2`,
};

/** A subscription of the account, or null (also for another account's subscription). */
export async function findSubscriptionRow(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<SubscriptionWithItems | null> {
  const [row] = await queryRows<Record<string, unknown> & { items: Record<string, unknown>[] }>(
    db,
    SUBSCRIPTION_WITH_ITEMS,
    [id, accountId],
  );
  if (!row) return null;
  return {
    ...modelOfRow<Subscription>(SUBSCRIPTION_MODEL, row),
    items: row.items.map((item) => modelOfRow<SubscriptionItem>(ITEM_MODEL, item)),
  };
}

/** A test clock as a statement answers it in JSON (its times as text), for clockBinding once its dates are read. */
export interface ClockColumns {
  id: string;
  frozenTime: string;
  status: string;
  deletedAt: string | null;
}

const SUBSCRIPTION_WITH_ITEMS_AND_CLOCK: Statement = {
  name: 'subscription_with_items_and_clock',
  text: `SELECT ${selectList(SUBSCRIPTION_MODEL, 's')},
    (SELECT coalesce(json_agg(${jsonObjectOf(ITEM_MODEL, 'i')} ORDER BY i.position), '[]') FROM subscription_items i WHERE i.subscription_id = s.id) AS items,
    (SELECT json_build_object('id', k.id, 'frozenTime', k.frozen_time, 'status', k.status, 'deletedAt', k.deleted_at)
      FROM customers c JOIN test_clocks k ON k.id = c.test_clock_id WHERE c.id = s.customer_id) AS "testClock"
    FROM subscriptions s WHERE s.id = $1 AND s.account_id = $2`,
};

/**
 * findSubscriptionRow with its customer's test clock (null for none), in one statement where reading them one after
 * the other took three (docs/performance.md, "The upcoming invoice's fixed costs").
 */
export async function findSubscriptionRowAndClock(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<{ row: SubscriptionWithItems; testClock: ClockColumns | null } | null> {
  const [row] = await queryRows<
    Record<string, unknown> & { items: Record<string, unknown>[]; testClock: ClockColumns | null }
  >(db, SUBSCRIPTION_WITH_ITEMS_AND_CLOCK, [id, accountId]);
  if (!row) return null;
  return {
    row: {
      ...modelOfRow<Subscription>(SUBSCRIPTION_MODEL, row),
      items: row.items.map((item) => modelOfRow<SubscriptionItem>(ITEM_MODEL, item)),
    },
    testClock: row.testClock,
  };
}

/** How a subscription of the account is collected and its latest invoice, or null (another account's too). */
export function readSubscriptionCollection(
  db: Db,
  accountId: string,
  id: string,
): Promise<Pick<Subscription, 'collectionMethod' | 'latestInvoiceId'> | null> {
  return db.subscription.findFirst({
    where: { id, accountId },
    select: { collectionMethod: true, latestInvoiceId: true },
  });
}

/** A subscription of the account as the API shows it, or null (also for another account's subscription). */
export async function readSubscriptionObject(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<SubscriptionObject | null> {
  const row = await findSubscriptionRow(db, accountId, id);
  if (!row) return null;
  const [object] = await toSubscriptionObjects(db, accountId, [row]);
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

/** The columns of the row that show the workflow's state (Prisma's names): what every write of the row sets. */
export function subscriptionRowColumns(state: SubscriptionState) {
  const at = (ms: number | null) => (ms === null ? null : new Date(ms));
  return {
    status: apiStatus(state),
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
    billingThresholdAmountGte: state.billingThreshold ?? null,
    workflowVersion: state.version,
  };
}

type StateColumns = ReturnType<typeof subscriptionRowColumns>;
const STATE_FIELDS = Object.keys(subscriptionRowColumns({} as SubscriptionState)) as (keyof StateColumns)[];
/** A new row's fields: its identity and times, and the state's. */
export const NEW_ROW_FIELDS = [
  ...(['id', 'accountId', 'customerId', 'createdAt', 'updatedAt'] as const),
  ...STATE_FIELDS,
] satisfies (keyof Subscription)[];
/** A later version's fields: the state's, and the time of the write. */
const VERSION_FIELDS = [...STATE_FIELDS, 'updatedAt' as const] satisfies (keyof Subscription)[];

export type NewSubscriptionRow = Pick<Subscription, (typeof NEW_ROW_FIELDS)[number]>;
export type SubscriptionVersionRow = Pick<Subscription, (typeof VERSION_FIELDS)[number]>;

/**
 * How the row is written: a new row, or a later version over the one its writer read (nothing is
 * written when the row is no longer at `version`). Each value is an SQL parameter (`$1`); `record`
 * takes the JSON of subscriptionRowRecord, `when` a condition the insert waits for.
 */
export type SubscriptionRowWrite =
  | { insert: { record: string; when?: string } }
  | { update: { record: string; id: string; accountId: string; version: string } };

/**
 * The one write of the subscriptions row (docs/architecture.md, "Data access"), answering the
 * row's updated_ms (its trigger's): run by itself (writeSubscriptionRow) or as the step of a
 * statement that writes what goes with it (a WITH clause: the creation's, the first period's).
 */
export function subscriptionRowSql(write: SubscriptionRowWrite): string {
  if ('insert' in write) {
    const { record, when } = write.insert;
    const columns = NEW_ROW_FIELDS.map(columnOfField).join(', ');
    return `INSERT INTO subscriptions (${columns})
      SELECT ${columns} FROM jsonb_populate_record(NULL::subscriptions, ${record}::jsonb)${when ? `\n      WHERE ${when}` : ''}
      RETURNING updated_ms`;
  }
  const { record, id, accountId, version } = write.update;
  return `UPDATE subscriptions s ${setFromRecord('subscriptions', VERSION_FIELDS.map(columnOfField), record)}
      WHERE s.id = ${id} AND s.account_id = ${accountId} AND s.workflow_version = ${version}
      RETURNING s.updated_ms`;
}

/** A row's values as subscriptionRowSql's `record` (JSON for jsonb_populate_record). */
export function subscriptionRowRecord(row: NewSubscriptionRow | SubscriptionVersionRow): string {
  const fields: readonly (keyof NewSubscriptionRow)[] = 'id' in row ? NEW_ROW_FIELDS : VERSION_FIELDS;
  const values = row as Partial<NewSubscriptionRow>;
  return JSON.stringify(jsonRecord(Object.fromEntries(fields.map((field) => [field, values[field]]))));
}

/** The row's next version of `state` (its items are the caller's), as Prisma's @updatedAt would time it: the wall clock. */
export function subscriptionVersionRow(state: SubscriptionState): SubscriptionVersionRow {
  return { ...subscriptionRowColumns(state), updatedAt: new Date() };
}

const INSERT_ROW: Statement = {
  name: 'subscription_row_insert',
  text: subscriptionRowSql({ insert: { record: '$1' } }),
};
const UPDATE_ROW: Statement = {
  name: 'subscription_row_update',
  text: subscriptionRowSql({ update: { record: '$1', id: '$2', accountId: '$3', version: '$4' } }),
};

/**
 * Writes the row by itself: `state` as a new row, or as the version after `overVersion` (the one the
 * caller read or wrote). Answers whether it was written (an update finds the row at that version).
 */
export async function writeSubscriptionRow(
  tx: AnyTx,
  state: SubscriptionState,
  write: { insert: true } | { overVersion: number },
): Promise<boolean> {
  if ('insert' in write) {
    const row: NewSubscriptionRow = {
      id: state.id,
      accountId: state.accountId,
      customerId: state.customerId,
      createdAt: new Date(state.createdAt),
      ...subscriptionVersionRow(state),
    };
    return (await queryRows(tx, INSERT_ROW, [subscriptionRowRecord(row)])).length === 1;
  }
  const values = [subscriptionRowRecord(subscriptionVersionRow(state)), state.id, state.accountId, write.overVersion];
  return (await queryRows(tx, UPDATE_ROW, values)).length === 1;
}

const CLOSE_USAGE: Statement = {
  name: 'subscription_usage_close',
  text: 'UPDATE subscriptions SET usage_closed_at = $3 WHERE id = $1 AND account_id = $2',
};

/**
 * Closes the subscription's metered usage at `endsAt` in the caller's transaction, the one writing its final
 * invoice: ingestion refuses its meters' events before then from that commit on (docs/decisions.md §43,
 * "Usage after the end is refused"), without waiting for the workflow to write ended_at.
 */
export async function closeSubscriptionUsage(
  tx: AnyTx,
  accountId: string,
  subscriptionId: string,
  endsAt: Date,
): Promise<void> {
  await execute(tx, CLOSE_USAGE, [subscriptionId, accountId, endsAt]);
}

export const ITEM_FIELDS = [
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
export function recordJson<Row>(row: Row, fields: readonly (keyof Row & string)[]): Record<string, unknown> {
  return jsonRecord(Object.fromEntries(fields.map((field) => [field, row[field]])));
}

/**
 * A new subscription in one statement (about 0.1 ms of CPU against some 10 Prisma statements in a
 * transaction): the row, its items, subscription.created (with the row's updated_ms, set by its
 * trigger) and the workflow_starts row, only while every price is as the checks read it
 * (same updated_ms), locked FOR SHARE as lockNewPrices does, and while the customer is live, locked
 * as lockCustomer's `share` does (a concurrent deletion waits, then refuses: decisions.md §4); no row
 * answered otherwise. The event's `updated_ms` is the row's less $14 (1 when the row is written at the version after
 * the one the event tells of: insertInvoicedSubscriptionInTx).
 */
const INSERT_SUBSCRIPTION: Statement = {
  name: 'subscription_insert',
  text: `WITH locked AS (
      SELECT p.id FROM prices p JOIN unnest($3::text[], $4::bigint[]) AS v(id, updated_ms) ON p.id = v.id
      WHERE p.account_id = $2 AND p.updated_ms = v.updated_ms FOR SHARE OF p
    ), live_customer AS (
      SELECT c.id FROM customers c
      WHERE c.id = $1::jsonb->>'customer_id' AND c.account_id = $2 AND c.deleted_at IS NULL FOR KEY SHARE OF c
    ), sub AS (
      ${subscriptionRowSql({ insert: { record: '$1', when: '(SELECT count(*) FROM locked) = cardinality($3::text[]) AND EXISTS (SELECT FROM live_customer)' } })}
    ), items AS (
      INSERT INTO subscription_items (${columnList(ITEM_FIELDS)})
      SELECT ${columnList(ITEM_FIELDS)} FROM jsonb_populate_recordset(NULL::subscription_items, $5::jsonb) WHERE EXISTS (SELECT FROM sub)
    ), event AS (
      ${insertEventsSql(`SELECT $6, $2, 'subscription.created', jsonb_set($7::jsonb, '{updated_ms}', to_jsonb(sub.updated_ms - $14::bigint)), $8::timestamptz FROM sub`)}
    ), start AS (
      ${insertWorkflowStartsSql('SELECT $9, $2, $10, $11, $12::jsonb, $13::jsonb FROM sub WHERE $9::text IS NOT NULL')}
    )
    SELECT sub.updated_ms::text AS "updatedMs", ${notifyEventsSql('event')} AS notified FROM sub`,
};

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

/** INSERT_SUBSCRIPTION with its values (newSubscription's): the row's updated_ms, or null when nothing was written. */
export async function insertSubscriptionRows(db: AnyTx | Db, values: unknown[]): Promise<string | null> {
  const [written] = await queryRows<{ updatedMs: string }>(db, INSERT_SUBSCRIPTION, values);
  return written?.updatedMs ?? null;
}

/** RECORD_FIRST_PERIOD with its values: the row's updated_ms, or null when the row had moved on. */
export async function writeFirstPeriodBilled(db: AnyTx | Db, values: unknown[]): Promise<string | null> {
  const [updated] = await queryRows<{ updatedMs: string }>(db, RECORD_FIRST_PERIOD, values);
  return updated?.updatedMs ?? null;
}

const LOCK_VERSION: Statement = {
  name: 'subscription_lock_version',
  text: 'SELECT workflow_version AS "workflowVersion" FROM subscriptions WHERE id = $1 FOR UPDATE',
};

/** The row's version, locked until the caller's transaction ends; undefined when there is no row yet. */
export async function lockSubscriptionVersion(tx: AnyTx, id: string): Promise<number | undefined> {
  const [current] = await queryRows<{ workflowVersion: number }>(tx, LOCK_VERSION, [id]);
  return current?.workflowVersion;
}

const ITEMS_OF: Statement = {
  name: 'subscription_items_of',
  text: `SELECT ${selectList(ITEM_MODEL, 'i')} FROM subscription_items i WHERE i.subscription_id = $1`,
};

/** The subscription's item rows, in no order. */
export function readSubscriptionItems(db: Queryable, subscriptionId: string): Promise<SubscriptionItem[]> {
  return queryModels<SubscriptionItem>(db, ITEM_MODEL, ITEMS_OF, [subscriptionId]);
}

const DELETE_ITEMS_BUT: Statement = {
  name: 'subscription_items_delete_but',
  text: 'DELETE FROM subscription_items WHERE subscription_id = $1 AND id <> ALL($2::text[])',
};

/** Deletes the subscription's items but `keptIds`. */
export async function deleteItemsBut(tx: AnyTx, subscriptionId: string, keptIds: string[]): Promise<void> {
  await queryRows(tx, DELETE_ITEMS_BUT, [subscriptionId, keptIds]);
}

const UPSERT_ITEMS: Statement = {
  name: 'subscription_items_upsert',
  text: `INSERT INTO subscription_items (${columnList(ITEM_FIELDS)})
    SELECT ${columnList(ITEM_FIELDS)} FROM jsonb_populate_recordset(NULL::subscription_items, $1::jsonb)
    ON CONFLICT (id) DO UPDATE SET price_id = EXCLUDED.price_id, quantity = EXCLUDED.quantity,
      position = EXCLUDED.position, tax_rate_ids = EXCLUDED.tax_rate_ids`,
};

/** Writes `items`: new ones inserted as they are, existing ones (by id) given their price, quantity, position and tax rates. */
export async function upsertItems(tx: AnyTx, items: SubscriptionItem[]): Promise<void> {
  if (items.length === 0) return;
  await queryRows(tx, UPSERT_ITEMS, [JSON.stringify(items.map((item) => recordJson(item, ITEM_FIELDS)))]);
}

type PricedColumns = RowColumns<Price> & { productName: string | null };

/** What POST /subscriptions checks, as CREATION_INPUTS reads it: no row when the customer is unknown. */
export type CreationInputsRow = CustomerColumns & {
  testClock: { id: string; frozenTime: string; status: string; deletedAt: string | null } | null;
  prices: PricedColumns[];
  taxRates: RowColumns<TaxRate>[];
  paymentMethod: { id: string; type: string; customerId: string | null } | null;
  /** The account's reminder settings (wantedReminderDays gives the days they ask for). */
  reminderSettings: Pick<AccountProfile, 'emailsOff' | 'renewalReminderDays' | 'trialEndReminderDays'>;
};

/**
 * Everything POST /subscriptions checks in the database, in one prepared statement (src/db/sql.ts:
 * about a tenth of Prisma's CPU, one round trip instead of six): the customer (no row when unknown),
 * its test clock, the request's prices with their products' names, its tax rates and payment method, and the
 * account's reminder days (its workflow's first reminder is timed by them: docs/decisions.md §31).
 */
const CREATION_INPUTS: Statement = {
  name: 'subscription_creation_inputs',
  text: `SELECT ${CUSTOMER_COLUMNS},
    (SELECT json_build_object('id', k.id, 'frozenTime', k.frozen_time, 'status', k.status, 'deletedAt', k.deleted_at)
      FROM test_clocks k WHERE k.id = c.test_clock_id) AS "testClock",
    (SELECT coalesce(json_agg(x), '[]') FROM (SELECT ${PRICE_COLUMNS}, pr.name AS "productName"
      FROM prices p LEFT JOIN products pr ON pr.id = p.product_id AND pr.account_id = p.account_id
      WHERE p.account_id = $2 AND p.id = ANY($3::text[])) x) AS prices,
    (SELECT coalesce(json_agg(x), '[]') FROM (SELECT ${TAX_RATE_COLUMNS} FROM tax_rates t
      WHERE t.account_id = $2 AND t.id = ANY($4::text[])) x) AS "taxRates",
    (SELECT json_build_object('id', m.id, 'type', m.type, 'customerId', m.customer_id) FROM payment_methods m
      WHERE m.id = $5 AND m.account_id = $2) AS "paymentMethod",
    (SELECT json_build_object('emailsOff', coalesce(a.emails_off, '{}'), 'renewalReminderDays', a.renewal_reminder_days,
      'trialEndReminderDays', a.trial_end_reminder_days) FROM accounts a WHERE a.id = $2) AS "reminderSettings"
    FROM customers c WHERE c.id = $1 AND c.account_id = $2 AND c.deleted_at IS NULL`,
};

/** CREATION_INPUTS: no row when the customer is unknown, deleted or another account's. */
export async function readCreationInputs(
  db: Db,
  input: {
    customerId: string;
    accountId: string;
    priceIds: string[];
    taxRateIds: string[];
    paymentMethodId: string | null;
  },
): Promise<CreationInputsRow | undefined> {
  const [row] = await queryRows<CreationInputsRow>(db, CREATION_INPUTS, [
    input.customerId,
    input.accountId,
    input.priceIds,
    input.taxRateIds,
    input.paymentMethodId,
  ]);
  return row;
}

// The customer's live subscriptions' items whose price counts one of the meters (docs/decisions.md §43).
const METERS_BILLED_ELSEWHERE: Statement = {
  name: 'subscription_meters_billed_elsewhere',
  text: `SELECT p.meter_id, s.id AS subscription_id FROM subscriptions s
      JOIN subscription_items i ON i.subscription_id = s.id
      JOIN prices p ON p.id = i.price_id AND p.account_id = s.account_id
    WHERE s.account_id = $1 AND s.customer_id = $2 AND s.id <> $4
      AND s.status IN ('scheduled', 'trialing', 'active', 'paused') AND p.meter_id = ANY($3::text[])
    LIMIT 1`,
};

/** A live subscription of the customer other than `exceptId` that bills one of `meterIds`, or null. */
export async function meterBilledElsewhere(
  db: Queryable,
  accountId: string,
  customerId: string,
  meterIds: string[],
  exceptId: string,
): Promise<{ meterId: string; subscriptionId: string } | null> {
  if (meterIds.length === 0) return null;
  const [row] = await queryRows<{ meter_id: string; subscription_id: string }>(db, METERS_BILLED_ELSEWHERE, [
    accountId,
    customerId,
    meterIds,
    exceptId,
  ]);
  return row ? { meterId: row.meter_id, subscriptionId: row.subscription_id } : null;
}
