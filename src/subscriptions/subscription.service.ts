import { wantedReminderDays } from '../emails';
import { config } from '../config';
import type { AppDeps } from '../http/app-deps';
import { BILLING_INTERVALS } from './billing-dates';
import { columnValue } from '../lib/columns';
import type { Client } from '@temporalio/client';
import type { Db } from '../db/prisma';
import { findPrice, readPrices } from '../catalog';
import { assertSubscribablePrice, isMeteredPrice } from '../catalog';
import type { PriceObject } from '../catalog';
import type { TaxRateForCalc } from '../catalog';
import { assertPaysCurrency } from '../payments';
import {
  assertItemsWithinCeiling,
  assertPeriodWithinCeiling,
  type BilledItem,
  type ItemWithParam,
} from './period-ceiling';
import { findTaxRates, taxRateOfRow, taxRatesInOrder } from '../catalog';
import type { TaxRateObject } from '../catalog';
import { priceOfRow, toPriceObject, withProductNames } from '../catalog';
import { customerOfRow, withCustomerNames } from '../customers';
import { inOrderOf } from '../db/sql';
import { badRequest, conflict, notFound, orNotFound } from '../http/errors';
import { keysetListPage, type Page } from '../http/pagination';
import {
  countSubscriptions,
  readSubscriptionIdPage,
  readSubscriptionIdsAfter,
  readSubscriptionPosition,
  readSubscriptionsWithItems,
} from './subscription-list.records';
import { withParam } from '../invoices';
import { idFromSeed, newId } from '../lib/ids';
import { claimOperationId } from '../http/idempotency';
import { currentOrigin } from '../lib/events';
import { withOrigin } from '../lib/event-origin';
import { findPaymentMethod } from '../payments';
import {
  cancelUpdate,
  changeUpdate,
  pauseUpdate,
  resumeUpdate,
  type OriginArgs,
  type SubscriptionCreated,
} from '../../workflows/subscription-messages';
import type { BillingInterval } from './billing-dates';
import type { ItemChange, SubscriptionChanges, SubscriptionCreateSpec } from './subscription-machine';
import { updateSubscriptionWorkflow } from './subscription-workflow.client';
import { createdBefore, createSubscriptionRecords } from './subscription-creation.service';
import { getSubscriptionObject } from './subscription-projection.service';
import type { Gateways } from '../payments';
import {
  findSubscriptionRowAndClock,
  meterBilledElsewhere,
  readCreationInputs,
  toSubscriptionObjects,
  type SubscriptionWithItems,
} from './subscription.records';
import type {
  CreateSubscriptionInput,
  GetSubscriptionQuery,
  ListSubscriptionsQuery,
  SubscriptionObject,
  UpdateSubscriptionInput,
} from './subscription.schemas';
import { atTime, currentTime } from '../lib/clock-time';
import { clockBindingOfColumns } from '../test-clocks';
import { subscriptionDisplay } from '../temporal';
import { accountProrationBehavior } from './proration-settings.service';
import { assertRedeemable } from '../coupons';

export interface SubscriptionDeps {
  prisma: Db;
  temporal: Client;
  taskQueue: string;
  /** Chooses the gateway of the first charge (src/payments/gateways.ts). */
  gateways: Gateways;
  /** The workflow service's time (AppDeps.temporalNow): the wall clock unless given. */
  temporalNow?: () => Promise<number>;
}

/** What the subscription services need of the app's dependencies (the API's routes and the customer portal's). */
export function subscriptionDepsOf(appDeps: AppDeps): SubscriptionDeps {
  return {
    prisma: appDeps.prisma,
    temporal: appDeps.temporal,
    taskQueue: appDeps.taskQueue ?? config.taskQueue,
    gateways: appDeps.gateways,
    temporalNow: appDeps.temporalNow,
  };
}

interface Cadence {
  currency: string;
  interval: BillingInterval;
  intervalCount: number;
}

const describeCadence = ({ currency, interval, intervalCount }: Cadence) =>
  `${currency} every ${intervalCount} ${interval}${intervalCount > 1 ? 's' : ''}`;

/** A recurring price of the account for `param`: 404 when unknown, 400 when one-time or not billed like the subscription. */
async function recurringPrice(
  db: Db,
  accountId: string,
  priceId: string,
  param: string,
  cadence?: Cadence,
): Promise<{ price: PriceObject; cadence: Cadence }> {
  return recurringPriceOf(await withParam(param, () => findPrice(db, accountId, priceId)), param, cadence);
}

/** recurringPrice's 400s on a price already read. */
function recurringPriceOf(
  price: PriceObject,
  param: string,
  cadence?: Cadence,
): { price: PriceObject; cadence: Cadence } {
  const priceId = price.id;
  if (price.type !== 'recurring' || !price.recurring) {
    throw badRequest(`Price ${priceId} is a one-time price; subscriptions need recurring prices.`, param);
  }
  assertSubscribablePrice(price, param);
  const own: Cadence = {
    currency: price.currency,
    interval: price.recurring.interval,
    intervalCount: price.recurring.interval_count,
  };
  if (cadence && describeCadence(own) !== describeCadence(cadence)) {
    throw badRequest(
      `Price ${priceId} bills ${describeCadence(own)}, but the subscription's items bill ${describeCadence(cadence)}; all items must share one currency and interval.`,
      param,
    );
  }
  return { price, cadence: own };
}

async function activeTaxRates(
  db: Db,
  accountId: string,
  ids: string[] | undefined,
  param: string,
): Promise<TaxRateForCalc[]> {
  return activeOf(await withParam(param, () => findTaxRates(db, accountId, ids ?? [])), param);
}

/**
 * An item's quantity as its price bills it: a licensed price needs one, a metered price takes none and
 * holds 0 (its meter's usage is billed: docs/decisions.md §43). 400 naming `param` (items.N.quantity).
 */
function itemQuantity(price: PriceObject, quantity: number | undefined, param: string): number {
  if (isMeteredPrice(price)) {
    if (quantity !== undefined)
      throw badRequest(
        `Price ${price.id} is metered: its usage is billed, so the item takes no quantity.`,
        param,
        'parameter_invalid',
      );
    return 0;
  }
  if (quantity === undefined)
    throw badRequest(`Invalid body parameter '${param}': Required with a licensed price`, param, 'parameter_missing');
  return quantity;
}

/**
 * A meter is billed by one item of the customer's live subscriptions (docs/decisions.md §43): usage events name
 * a customer and a meter, not an item, so a second item counting the same meter would bill the same events
 * twice. 400 `meter_already_billed` naming the item's price. `metered`: the metered prices the subscription
 * will hold, each with the field that named it (null: an item it keeps).
 */
async function assertMetersBilledOnce(
  db: Db,
  accountId: string,
  customerId: string,
  subscriptionId: string,
  metered: { price: PriceObject; param: string | null }[],
): Promise<void> {
  const seen = new Set<string>();
  for (const { price, param } of metered) {
    const meter = price.recurring?.meter;
    if (!meter) continue;
    if (seen.has(meter) && param)
      throw badRequest(
        `Price ${price.id} counts meter ${meter}, which another item of the subscription bills already; its usage would be billed twice.`,
        param,
        'meter_already_billed',
      );
    seen.add(meter);
  }
  const named = metered.filter((entry) => entry.param !== null);
  const meters = named.map((entry) => entry.price.recurring!.meter!);
  const elsewhere = await meterBilledElsewhere(db, accountId, customerId, meters, subscriptionId);
  if (!elsewhere) return;
  const entry = named.find((candidate) => candidate.price.recurring?.meter === elsewhere.meterId)!;
  throw badRequest(
    `Price ${entry.price.id} counts meter ${elsewhere.meterId}, which subscription ${elsewhere.subscriptionId} of the customer bills already; its usage would be billed twice.`,
    entry.param!,
    'meter_already_billed',
  );
}

function activeOf(rates: TaxRateObject[], param: string): TaxRateForCalc[] {
  const inactive = rates.find((rate) => !rate.active);
  if (inactive) throw badRequest(`Tax rate ${inactive.id} is inactive and cannot be applied.`, param);
  return rates;
}

async function attachedPaymentMethod(
  db: Db,
  accountId: string,
  customerId: string,
  id: string,
  currency: string,
): Promise<string> {
  return attachedOf(
    await withParam('default_payment_method', () => findPaymentMethod(db, accountId, id)),
    customerId,
    currency,
  );
}

/** The method's id when it is attached to the customer and pays the subscription's currency (decisions.md §5); 400 otherwise. */
function attachedOf(
  method: { id: string; type: string; customerId: string | null },
  customerId: string,
  currency: string,
): string {
  if (method.customerId !== customerId) {
    throw badRequest(
      `Payment method ${method.id} is not attached to customer ${customerId}.`,
      'default_payment_method',
      'payment_method_not_attached',
    );
  }
  assertPaysCurrency(method, currency, 'default_payment_method');
  return method.id;
}

function assertFuture(seconds: number | null | undefined, param: string): void {
  if (seconds !== undefined && seconds !== null && seconds * 1000 <= currentTime().getTime()) {
    throw badRequest(`Invalid body parameter '${param}': must be in the future`, param);
  }
}

/**
 * POST /subscriptions: everything that needs the database is read in one statement and checked here
 * in the order of the request (customer, test clock, each item's price and tax rates, payment method:
 * 404 or 400 naming the field), then the subscription is written with the start of its workflow and
 * its first invoice, and charged (subscription-creation.service.ts).
 */
export async function createSubscription(
  deps: SubscriptionDeps,
  accountId: string,
  input: CreateSubscriptionInput,
  { idempotencySeed }: { idempotencySeed?: string } = {},
): Promise<SubscriptionCreated> {
  const { prisma } = deps;
  // With an Idempotency-Key the id is the claim's: a retry taking over a request that died after its
  // commit answers what that request created (and charged) instead of creating it again.
  const id = idempotencySeed ? idFromSeed('subscription', idempotencySeed) : newId('subscription');
  if (idempotencySeed) {
    const created = await createdBefore(prisma, accountId, id);
    if (created) return created;
  }
  const row = await readCreationInputs(prisma, {
    customerId: input.customer,
    accountId,
    priceIds: [...new Set(input.items.map((item) => item.price))],
    taxRateIds: [...new Set(input.items.flatMap((item) => item.tax ?? []))],
    paymentMethodId: input.default_payment_method ?? null,
  });
  if (!row) throw notFound('customer', input.customer, 'customer');
  const { testClock: clockRow, prices: priceRows, taxRates: rateRows, paymentMethod, ...customerColumns } = row;
  const customer = customerOfRow(customerColumns);
  // A customer on a test clock: its time judges the dates, and the workflow runs on it.
  const testClock = clockRow ? clockBindingOfColumns(clockRow) : null;
  await atTime(testClock?.time, async () => assertFuture(input.end_date, 'end_date'));
  const pricesById = new Map(priceRows.map((price) => [price.id, price]));
  const taxRates = rateRows.map(taxRateOfRow);
  let cadence: Cadence | undefined;
  const items: SubscriptionCreateSpec['items'] = [];
  const billed: BilledItem[] = [];
  const prices: PriceObject[] = [];
  const productNames: (string | null)[] = [];
  for (const [index, item] of input.items.entries()) {
    const param = `items.${index}`;
    const priceRow = pricesById.get(item.price);
    if (!priceRow) throw notFound('price', item.price, `${param}.price`);
    const resolved = recurringPriceOf(toPriceObject(priceOfRow(priceRow)), `${param}.price`, cadence);
    cadence = resolved.cadence;
    prices.push(resolved.price);
    productNames.push(priceRow.productName);
    const quantity = itemQuantity(resolved.price, item.quantity, `${param}.quantity`);
    const rates = activeOf(taxRatesInOrder(taxRates, item.tax ?? [], `${param}.tax`), `${param}.tax`);
    items.push({
      id: newId('subscriptionItem'),
      priceId: item.price,
      quantity,
      taxRateIds: rates.map((rate) => rate.id),
      ...(isMeteredPrice(resolved.price) ? { metered: true as const } : {}),
    });
    billed.push({
      unitAmount: resolved.price.unit_amount,
      quantity,
      rates,
      taxBehavior: resolved.price.tax_behavior,
      param,
    });
  }
  assertPeriodWithinCeiling(billed);
  const metered = prices.map((price, index) => ({ price, param: `items.${index}.price` }));
  if (prices.some(isMeteredPrice))
    await assertMetersBilledOnce(
      prisma,
      accountId,
      customer.id,
      id,
      metered.filter(({ price }) => isMeteredPrice(price)),
    );
  let defaultPaymentMethodId: string | null = null;
  if (input.default_payment_method !== undefined) {
    if (!paymentMethod) throw notFound('payment method', input.default_payment_method, 'default_payment_method');
    defaultPaymentMethodId = attachedOf(paymentMethod, customer.id, cadence!.currency);
  }
  const spec: SubscriptionCreateSpec = {
    id,
    accountId,
    customerId: customer.id,
    ...cadence!,
    collectionMethod: input.collection_method,
    defaultPaymentMethodId,
    items,
    trialDays: input.trial_days,
    startDate: input.start_date * 1000,
    endDate: input.end_date === undefined ? null : input.end_date * 1000,
    startBillingDate: input.start_billing_date === undefined ? null : input.start_billing_date * 1000,
    usageGraceMs: config.usageGraceMs,
    ...(input.billing_thresholds ? { billingThreshold: input.billing_thresholds.amount_gte } : {}),
  };
  const display = subscriptionDisplay({
    ...spec,
    customer,
    items: prices.map((price, index) => ({
      product: productNames[index] ?? price.product,
      unitAmount: price.unit_amount,
      quantity: items[index]!.quantity,
    })),
  });
  const nowMs = testClock?.time ?? (deps.temporalNow ? await deps.temporalNow() : currentTime().getTime());
  const started = { display, reminderDays: wantedReminderDays(row.reminderSettings) };
  return createSubscriptionRecords(deps, spec, nowMs, testClock, started, prices, input.coupon);
}

export async function listSubscriptions(
  prisma: Db,
  accountId: string,
  query: ListSubscriptionsQuery,
): Promise<Page<SubscriptionObject>> {
  const filters = { status: query.status, customer: query.customer };
  return keysetListPage(query, {
    kind: 'subscription',
    find: (id) => readSubscriptionPosition(prisma, accountId, id),
    after: (at, forward, take) => readSubscriptionIdsAfter(prisma, accountId, filters, { at, forward, take: take + 1 }),
    page: (take, skip) => readSubscriptionIdPage(prisma, accountId, filters, { take, skip }),
    count: () => countSubscriptions(prisma, accountId, filters),
    objects: async (ids) => {
      const rows = await readSubscriptionsWithItems(prisma, accountId, ids);
      const objects = await toSubscriptionObjects(prisma, accountId, inOrderOf(ids, rows));
      return query.include === 'names' ? withNames(prisma, accountId, objects) : objects;
    },
  });
}

export async function getSubscription(
  prisma: Db,
  accountId: string,
  id: string,
  query: GetSubscriptionQuery = {},
): Promise<SubscriptionObject> {
  const object = await getSubscriptionObject(prisma, accountId, id);
  return query.include === 'names' ? (await withNames(prisma, accountId, [object]))[0]! : object;
}

/**
 * `include=names` (docs/api.md, "Names on list rows"): each subscription with its customer's name and each
 * item's price with its product's, one statement for each kind whatever the number of subscriptions.
 */
async function withNames(db: Db, accountId: string, objects: SubscriptionObject[]): Promise<SubscriptionObject[]> {
  const named = await withCustomerNames(db, accountId, objects);
  const prices = await withProductNames(
    db,
    accountId,
    named.flatMap((object) => object.items.data.map((item) => item.price)),
  );
  const byId = new Map(prices.map((price) => [price.id, price]));
  return named.map((object) => ({
    ...object,
    items: {
      ...object.items,
      data: object.items.data.map((item) => ({ ...item, price: byId.get(item.price.id) ?? item.price })),
    },
  }));
}

/**
 * The live subscription of the account to change: 404 when unknown, 409 once it has ended (its
 * workflow is gone), and 409 while its customer's test clock advances. With its clock's time (ms) if any.
 */
export async function liveSubscription(
  prisma: Db,
  accountId: string,
  id: string,
): Promise<SubscriptionWithItems & { clockTime?: number }> {
  const { row, testClock } = orNotFound(await findSubscriptionRowAndClock(prisma, accountId, id), 'subscription', id);
  if (row.status === 'canceled' || row.status === 'expired') {
    throw conflict(`Subscription ${id} is ${row.status}; it can no longer change.`, `subscription_${row.status}`);
  }
  return { ...row, clockTime: testClock ? clockBindingOfColumns(testClock).time : undefined };
}

/**
 * The items the changes would leave, as the next invoice bills them, checked against the charge
 * ceiling. Ids the subscription does not have are skipped here: the workflow refuses them.
 */
async function assertChangedItemsWithinCeiling(
  prisma: Db,
  row: SubscriptionWithItems,
  changes: { param: string; change: ItemChange }[],
): Promise<void> {
  const items = new Map<string, ItemWithParam>(
    row.items.map((item) => [
      item.id,
      { priceId: item.priceId, quantity: item.quantity, taxRateIds: item.taxRateIds, param: null },
    ]),
  );
  for (const { param, change } of changes) {
    const current = items.get(change.id);
    if (change.kind === 'add')
      items.set(change.id, {
        priceId: change.priceId,
        quantity: change.quantity,
        taxRateIds: change.taxRateIds,
        param,
      });
    else if (change.kind === 'delete') items.delete(change.id);
    else if (current) {
      items.set(change.id, {
        priceId: change.priceId ?? current.priceId,
        quantity: change.quantity ?? current.quantity,
        taxRateIds: change.taxRateIds ?? current.taxRateIds,
        param,
      });
    }
  }
  await assertItemsWithinCeiling(prisma, row.accountId, [...items.values()]);
}

/**
 * The quantity a change of items sets, judged against the price the item will bill (its new price, else the
 * one it has): none with a metered price, required to add a licensed one or to move an item onto one.
 */
async function changedQuantity(
  prisma: Db,
  row: SubscriptionWithItems,
  item: NonNullable<UpdateSubscriptionInput['items']>[number],
  price: PriceObject | undefined,
  param: string,
): Promise<number | undefined> {
  if (item.deleted) return undefined;
  const current = item.id === undefined ? undefined : row.items.find((existing) => existing.id === item.id);
  // An unknown item id is the workflow's to refuse (404 naming it).
  if (item.id !== undefined && !current) return item.quantity;
  const currentPrice = current ? await findPrice(prisma, row.accountId, current.priceId) : null;
  const billedBy = price ?? currentPrice!;
  // A licensed item that stays licensed keeps its quantity unless one is given.
  if (item.quantity === undefined && currentPrice && !isMeteredPrice(currentPrice) && !isMeteredPrice(billedBy))
    return undefined;
  return itemQuantity(billedBy, item.quantity, param);
}

/** assertMetersBilledOnce on the items the changes leave: the new metered prices named by their fields. */
async function assertChangedMetersBilledOnce(
  prisma: Db,
  row: SubscriptionWithItems,
  changes: { param: string; change: ItemChange }[],
  newPrices: Map<string, PriceObject>,
): Promise<void> {
  const added = [...newPrices.entries()].filter(([, price]) => isMeteredPrice(price));
  if (added.length === 0) return;
  const changed = new Set(changes.map(({ change }) => change.id));
  const kept = row.items.filter((item) => !changed.has(item.id)).map((item) => item.priceId);
  const keptPrices = kept.length === 0 ? [] : await readPrices(prisma, row.accountId, kept);
  await assertMetersBilledOnce(prisma, row.accountId, row.customerId, row.id, [
    ...keptPrices.filter(isMeteredPrice).map((price) => ({ price, param: null })),
    ...added.map(([param, price]) => ({ price, param })),
  ]);
}

export async function itemChanges(
  prisma: Db,
  row: SubscriptionWithItems,
  input: NonNullable<UpdateSubscriptionInput['items']>,
) {
  const cadence: Cadence = {
    currency: row.currency,
    interval: columnValue(BILLING_INTERVALS, row.interval, 'subscriptions.interval'),
    intervalCount: row.intervalCount,
  };
  const changes: { param: string; change: ItemChange }[] = [];
  const newPrices = new Map<string, PriceObject>();
  for (const [index, item] of input.entries()) {
    const param = `items.${index}`;
    const price =
      item.price === undefined
        ? undefined
        : (await recurringPrice(prisma, row.accountId, item.price, `${param}.price`, cadence)).price;
    const priceId = price?.id;
    if (price) newPrices.set(`${param}.price`, price);
    const quantity = await changedQuantity(prisma, row, item, price, `${param}.quantity`);
    const metered = price === undefined ? undefined : isMeteredPrice(price);
    const taxRateIds =
      item.tax === undefined
        ? undefined
        : (await activeTaxRates(prisma, row.accountId, item.tax, `${param}.tax`)).map((rate) => rate.id);
    let change: ItemChange;
    if (item.id === undefined)
      change = {
        kind: 'add',
        id: newId('subscriptionItem'),
        priceId: priceId!,
        quantity: quantity!,
        taxRateIds: taxRateIds ?? [],
        ...(metered ? { metered } : {}),
      };
    else if (item.deleted) change = { kind: 'delete', id: item.id };
    else
      change = {
        kind: 'update',
        id: item.id,
        priceId,
        quantity,
        taxRateIds,
        ...(metered === undefined ? {} : { metered }),
      };
    changes.push({ param, change });
  }
  await assertChangedItemsWithinCeiling(prisma, row, changes);
  await assertChangedMetersBilledOnce(prisma, row, changes, newPrices);
  return changes;
}

/** PATCH /subscriptions/{id}: validated here against the database, applied by the workflow (which judges item ids and state). */
export async function updateSubscription(
  deps: SubscriptionDeps,
  accountId: string,
  id: string,
  input: UpdateSubscriptionInput,
): Promise<SubscriptionObject> {
  const { prisma } = deps;
  const row = await liveSubscription(prisma, accountId, id);
  return atTime(row.clockTime, () => applySubscriptionUpdate(deps, row, input));
}

async function applySubscriptionUpdate(
  deps: SubscriptionDeps,
  row: SubscriptionWithItems,
  input: UpdateSubscriptionInput,
): Promise<SubscriptionObject> {
  const { prisma } = deps;
  const { accountId, id } = row;
  const changes: SubscriptionChanges = {};
  if (input.items) {
    changes.items = await itemChanges(prisma, row, input.items);
    // The workflow prorates only what it is asked to; the account's setting is the default (decisions.md §25).
    const behavior = input.proration_behavior ?? (await accountProrationBehavior(prisma, accountId));
    if (behavior !== 'none') changes.prorationBehavior = behavior;
  }
  if (input.collection_method !== undefined) changes.collectionMethod = input.collection_method;
  if (input.default_payment_method !== undefined) {
    changes.defaultPaymentMethodId =
      input.default_payment_method === null
        ? null
        : await attachedPaymentMethod(prisma, accountId, row.customerId, input.default_payment_method, row.currency);
  }
  if (input.cancel_at !== undefined) {
    assertFuture(input.cancel_at, 'cancel_at');
    changes.cancelAt = input.cancel_at === null ? null : input.cancel_at * 1000;
  }
  if (input.cancel_at_period_end !== undefined) changes.cancelAtPeriodEnd = input.cancel_at_period_end;
  if (input.prorate !== undefined) changes.prorateEnd = input.prorate;
  if (input.billing_thresholds !== undefined)
    changes.billingThreshold = input.billing_thresholds === null ? null : input.billing_thresholds.amount_gte;
  if (input.end_date !== undefined) {
    assertFuture(input.end_date, 'end_date');
    if (input.end_date !== null && input.end_date * 1000 <= row.startDate.getTime()) {
      throw badRequest("Invalid body parameter 'end_date': must be after start_date", 'end_date');
    }
    changes.endDate = input.end_date === null ? null : input.end_date * 1000;
  }
  if (input.coupon !== undefined) {
    // Checked first (404, 409 before any other change is made), redeemed by the workflow under its lock after
    // the rest, so a cancellation decided before it refuses it (docs/decisions.md §37).
    await assertRedeemable(prisma, accountId, input.coupon, 'coupon', row.currency);
    changes.coupon = input.coupon;
  }
  if (Object.keys(changes).length === 0) return getSubscriptionObject(prisma, accountId, id);
  return updateSubscriptionWorkflow(deps, id, changeUpdate, [withOrigin(changes, currentOrigin())]);
}

export async function cancelSubscription(
  deps: SubscriptionDeps,
  accountId: string,
  id: string,
  atPeriodEnd: boolean,
  prorate = false,
): Promise<SubscriptionObject> {
  await liveSubscription(deps.prisma, accountId, id);
  return updateSubscriptionWorkflow(deps, id, cancelUpdate, [
    withOrigin({ atPeriodEnd, ...(prorate ? { prorate } : {}) }, currentOrigin()),
  ]);
}

/** A pause's or resume's argument: the hosted page it was asked on, if any (docs/decisions.md §38). */
function originArgs(): [OriginArgs] {
  return [withOrigin({}, currentOrigin())];
}

/**
 * A keyed pause or resume (`idempotencySeed`, the Idempotency-Key's claim) is sent as the update named
 * after the claim: a retry taking over the key after the first request died once its change had taken
 * effect answers that change's result, not 409 (decisions.md §11).
 */
export function pauseSubscription(
  deps: SubscriptionDeps,
  accountId: string,
  id: string,
  idempotencySeed?: string,
): Promise<SubscriptionObject> {
  return pauseOrResume(deps, accountId, id, 'pause', idempotencySeed);
}

export function resumeSubscription(
  deps: SubscriptionDeps,
  accountId: string,
  id: string,
  idempotencySeed?: string,
): Promise<SubscriptionObject> {
  return pauseOrResume(deps, accountId, id, 'resume', idempotencySeed);
}

async function pauseOrResume(
  deps: SubscriptionDeps,
  accountId: string,
  id: string,
  action: 'pause' | 'resume',
  idempotencySeed: string | undefined,
): Promise<SubscriptionObject> {
  await liveSubscription(deps.prisma, accountId, id);
  return updateSubscriptionWorkflow(
    deps,
    id,
    action === 'pause' ? pauseUpdate : resumeUpdate,
    originArgs(),
    idempotencySeed && claimOperationId(idempotencySeed, `subscription-${action}`),
  );
}
