import type { Customer } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { pageWindow } from '../http/pagination';
import { recordEvent } from '../lib/events';
import { newId } from '../lib/ids';
import { toUnixSeconds } from '../lib/time';
import type {
  Address,
  CreateCustomerInput,
  CustomerObject,
  ListCustomersQuery,
  UpdateCustomerInput,
} from './customer.schemas';
import { updatedMsOf } from '../lib/object-version';
import { containsPattern } from '../db/text-search';
import type { AnyTx } from '../db/sql';
import { cursorOf } from '../http/pagination';
import { notFound, orNotFound } from '../http/errors';
import {
  customerOfRow,
  findCustomerOffsetDay,
  findCustomerRow,
  insertCustomerRow,
  lockLiveCustomer,
  type CustomerListQuery,
  readCustomerCursor,
  readCustomerPage,
  readCustomersFromCursor,
  searchCustomersByEmail,
  searchCustomersByTrigrams,
  searchCustomersInNameWindow,
  type CustomerMatch,
  updateCustomerRow,
} from './customer.records';
import { atTime, currentTime } from '../lib/clock-time';
import { clockForNewCustomer } from '../test-clocks';
import { readTestClockRow } from '../test-clocks';
import { redeemCoupon } from '../coupons';
import type { DiscountObject } from '../coupons';

type Shipping = {
  name: string;
  phone: string | null;
  address: Address;
};

/**
 * The customer as the API and its events show it. `email`, `currency` and `shipping`, which the
 * contract types as a string or an object and marks optional, are left out while unset rather than
 * null; `description` and `phone` ("string or null") are null (docs/decisions.md §18).
 */
export function toCustomerObject(customer: Customer): CustomerObject {
  const shipping = customer.shipping as Shipping | null;
  return {
    id: customer.id,
    object: 'customer',
    name: customer.name,
    ...(customer.email !== null ? { email: customer.email } : {}),
    description: customer.description,
    phone: customer.phone,
    created: toUnixSeconds(customer.createdAt),
    updated_ms: updatedMsOf(customer),
    ...(customer.currency !== null ? { currency: customer.currency } : {}),
    address: (customer.address as Address[] | null) ?? [],
    ...(shipping ? { shipping } : {}),
    test_clock: customer.testClockId,
    balance: Number(customer.balance),
    balance_currency: customer.balanceCurrency,
    discount: (customer.discount as DiscountObject | null) ?? null,
  };
}

/** Drops undefined keys so stored JSON holds only what was given. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** A live customer of the account, or 404 (also for another account's customer: no existence leak). */
export async function findCustomer(db: Db | Tx, accountId: string, id: string): Promise<Customer> {
  const customer = await findCustomerRow(db, accountId, id);
  if (!customer) throw notFound('customer', id, 'externalKey');
  return customer;
}

/**
 * A live customer, locked until the caller's transaction ends (customer.records.ts, LOCK_CUSTOMER: `share`
 * for what makes something payable for it, `update` for its deletion); 404 for a deleted, unknown or other
 * account's customer.
 */
export async function lockCustomer(
  tx: AnyTx,
  accountId: string,
  id: string,
  mode: 'share' | 'update',
): Promise<Customer> {
  return orNotFound(await lockLiveCustomer(tx, accountId, id, mode), 'customer', id);
}

export async function createCustomer(
  prisma: Db,
  accountId: string,
  input: CreateCustomerInput,
): Promise<CustomerObject> {
  return prisma.$transaction(async (tx) => {
    const testClockId = await clockForNewCustomer(tx, accountId, input.test_clock);
    // A customer on a test clock is created at the clock's time, like what it will own.
    const clockTime = testClockId ? (await readTestClockRow(tx, testClockId)).frozenTime : undefined;
    const customer = await insertCustomerRow(tx, {
      id: newId('customer'),
      accountId,
      testClockId,
      ...(clockTime ? { createdAt: clockTime } : {}),
      name: input.name,
      email: input.email,
      description: input.description,
      phone: input.phone,
      currency: input.currency,
      address: (input.address ?? []).map(compact),
      shipping: input.shipping ? { ...input.shipping, address: compact(input.shipping.address) } : undefined,
    });
    return atTime(clockTime?.getTime(), async () => {
      // A coupon given at creation is redeemed on the customer in the same transaction (docs/decisions.md §37).
      const discount = input.coupon
        ? await redeemCoupon(tx, accountId, input.coupon, { customerId: customer.id, subscriptionId: null })
        : null;
      const object = { ...toCustomerObject(customer), discount };
      await recordEvent(tx, accountId, 'customer.created', object);
      return object;
    });
  });
}

/** An offset at or past which a page in creation order is found through customer_counts' days. */
const DEEP_OFFSET = 2000;

/**
 * A page at an offset: deep in creation order with no filter, within the day customer_counts finds (at most a
 * day's entries skipped, docs/decisions.md §36); otherwise as asked (an index-only skip of the sort's index).
 */
async function deepWindow(
  prisma: Db,
  accountId: string,
  list: Omit<CustomerListQuery, 'skip'>,
  window: { skip: number; take: number },
): Promise<CustomerListQuery> {
  const plain = { ...list, ...window };
  if (
    window.skip < DEEP_OFFSET ||
    list.sort !== 'created' ||
    list.pattern !== undefined ||
    list.testClock !== undefined
  )
    return plain;
  const day = await findCustomerOffsetDay(prisma, accountId, list.order, window.skip);
  if (!day) return plain; // past the last customer: an empty page
  return list.order === 'DESC'
    ? { ...plain, createdUntil: day.until, skip: window.skip - day.before }
    : { ...plain, createdFrom: day.from, skip: window.skip - day.before };
}

/**
 * GET /customers: a page at an offset, or after/before a cursor (docs/decisions.md §23), each read in the
 * order of the sort's index; the id breaks ties so pages are stable when many rows share a sort value.
 */
export async function listCustomers(
  prisma: Db,
  accountId: string,
  query: ListCustomersQuery,
): Promise<CustomerObject[]> {
  const list = {
    sort: query.sortingField,
    order: query.order,
    take: query.take,
    ...(query.search ? { pattern: containsPattern(query.search) } : {}),
    ...(query.test_clock ? { testClock: query.test_clock } : {}),
  };
  const cursor = cursorOf(query);
  if (!cursor) {
    const rows = await readCustomerPage(
      prisma,
      accountId,
      await deepWindow(prisma, accountId, list, pageWindow(query)),
    );
    return rows.map((row) => toCustomerObject(customerOfRow(row)));
  }
  const at = await readCustomerCursor(prisma, accountId, cursor.id);
  const param = cursor.direction === 'after' ? 'starting_after' : 'ending_before';
  if (!at) throw notFound('customer', cursor.id, param);
  const forward = cursor.direction === 'after';
  const found = await readCustomersFromCursor(prisma, accountId, list, at, forward);
  if (!forward) found.reverse();
  return found.map((row) => toCustomerObject(customerOfRow(row)));
}

export const SEARCH_RESULT_LIMIT = 100;
/** How many customers in name order the search reads before it turns to the trigram indexes (docs/decisions.md §23). */
export const SEARCH_WINDOW = 20_000;

/**
 * /customers/search (docs/decisions.md §23): an id finds its customer; a whole email finds the customers
 * with it (as written or in lower case) through the email index; other text is looked for among the first
 * SEARCH_WINDOW customers by name (the index alone), then, when that found fewer than SEARCH_RESULT_LIMIT,
 * through the trigram indexes. An email found nowhere that way is looked for as text too.
 */
export async function searchCustomers(prisma: Db, accountId: string, search: string) {
  let found: CustomerMatch[];
  if (/^cus_[A-Za-z0-9]+$/.test(search)) {
    const customer = await readCustomerCursor(prisma, accountId, search);
    found = customer ? [customer] : [];
  } else {
    const pattern = containsPattern(search);
    const wholeEmail = /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(search);
    if (wholeEmail) found = await searchCustomersByEmail(prisma, accountId, search, SEARCH_RESULT_LIMIT);
    else found = await searchCustomersInNameWindow(prisma, accountId, pattern, SEARCH_WINDOW, SEARCH_RESULT_LIMIT);
    if (found.length < SEARCH_RESULT_LIMIT && !(wholeEmail && found.length > 0))
      found = await searchCustomersByTrigrams(prisma, accountId, pattern, SEARCH_RESULT_LIMIT);
  }
  // `email` left out while unset, as on the customer (docs/decisions.md §18).
  return found.map(({ id, name, email }) => ({ id, name, ...(email !== null ? { email } : {}) }));
}

export async function getCustomer(prisma: Db, accountId: string, id: string): Promise<CustomerObject> {
  return toCustomerObject(await findCustomer(prisma, accountId, id));
}

/**
 * decisions.md §4: `billingAddress` fills address[0] (and email/phone), `shippingAddress` fills
 * `shipping`; only the fields given change.
 */
export async function updateCustomer(
  prisma: Db,
  accountId: string,
  id: string,
  input: UpdateCustomerInput,
): Promise<CustomerObject> {
  return prisma.$transaction(async (tx) => {
    const current = await findCustomer(tx, accountId, id);
    const data: { name?: string; email?: string; phone?: string; address?: Address[]; shipping?: Shipping } = {};
    if (input.name !== undefined) data.name = input.name;
    if (input.email !== undefined) data.email = input.email;

    const billing = input.billingAddress;
    if (billing) {
      if (billing.email !== undefined) data.email = billing.email;
      if (billing.phone !== undefined) data.phone = billing.phone;
      const addresses = [...((current.address as Address[] | null) ?? [])];
      addresses[0] = compact({
        ...addresses[0],
        line1: billing.address1 ?? addresses[0]?.line1,
        line2: billing.address2 ?? addresses[0]?.line2,
        postal_code: billing.postalCode ?? addresses[0]?.postal_code,
        city: billing.city ?? addresses[0]?.city,
        country: billing.country ?? addresses[0]?.country,
        state: billing.state ?? addresses[0]?.state,
      });
      data.address = addresses;
    }

    const shippingInput = input.shippingAddress;
    if (shippingInput) {
      const shipping = (current.shipping as Shipping | null) ?? {
        name: data.name ?? current.name,
        phone: null,
        address: {},
      };
      data.shipping = {
        name: shipping.name,
        phone: shippingInput.shippingPhone ?? shipping.phone,
        address: compact({
          ...shipping.address,
          line1: shippingInput.shippingAddress1 ?? shipping.address.line1,
          line2: shippingInput.shippingAddress2 ?? shipping.address.line2,
          postal_code: shippingInput.shippingPostalCode ?? shipping.address.postal_code,
          city: shippingInput.shippingCity ?? shipping.address.city,
          country: shippingInput.shippingCountry ?? shipping.address.country,
          state: shippingInput.shippingState ?? shipping.address.state,
        }),
      };
    }

    const clockTime = current.testClockId
      ? (await readTestClockRow(tx, current.testClockId)).frozenTime.getTime()
      : undefined;
    // A coupon replaces the customer's discount from now (the clock's now on a test clock: docs/decisions.md §37).
    const discount = input.coupon
      ? await atTime(clockTime, () =>
          redeemCoupon(tx, accountId, input.coupon!, { customerId: current.id, subscriptionId: null }),
        )
      : undefined;
    const customer = await updateCustomerRow(tx, current.id, data);
    const object = discount ? { ...toCustomerObject(customer), discount } : toCustomerObject(customer);
    await recordEvent(tx, accountId, 'customer.updated', object);
    return object;
  });
}

/**
 * The customer's part of its deletion (src/use-cases/customer-deletion.ts, which does the rest first):
 * hidden from every endpoint, customer.deleted. The row is kept (soft delete) so invoices and payments
 * that name it keep their history.
 */
export async function markCustomerDeleted(
  tx: Tx,
  accountId: string,
  id: string,
): Promise<{ id: string; object: 'customer'; deleted: true }> {
  const customer = await updateCustomerRow(tx, id, { deletedAt: currentTime() });
  await recordEvent(tx, accountId, 'customer.deleted', toCustomerObject(customer));
  return { id: customer.id, object: 'customer' as const, deleted: true as const };
}
