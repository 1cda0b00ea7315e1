import { Prisma, type CustomerDefaultPaymentMethod, type PaymentMethod } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import {
  execute,
  jsonObjectOf,
  modelColumns,
  modelOfRow,
  queryModels,
  queryRows,
  selectList,
  type AnyTx,
  type Queryable,
  type Statement,
} from '../db/sql';

/** A payment_methods row's columns in Prisma's shape (its ScalarFieldEnum: none missed), for statements outside Prisma. */
const PAYMENT_METHOD_COLUMNS = modelColumns<PaymentMethod>(Prisma.PaymentMethodScalarFieldEnum, {
  bigint: ['updatedMs'],
  date: ['createdAt', 'updatedAt'],
  'date?': ['attachedAt', 'detachedAt'],
});

/** Reads of one payment method, on every charge: prepared statements (src/db/sql.ts) instead of Prisma's pipeline. */
const PAYMENT_METHOD_BY_ID: Statement = {
  name: 'payment_method_by_id',
  text: `SELECT ${selectList(PAYMENT_METHOD_COLUMNS, 'm')} FROM payment_methods m WHERE m.id = $1 AND m.account_id = $2`,
};
const DEFAULT_PAYMENT_METHOD: Statement = {
  name: 'payment_method_default',
  text: `SELECT ${selectList(PAYMENT_METHOD_COLUMNS, 'm')} FROM customer_default_payment_methods d
    JOIN payment_methods m ON m.id = d.payment_method_id AND m.account_id = d.account_id AND m.customer_id = d.customer_id
    WHERE d.account_id = $1 AND d.customer_id = $2`,
};

/**
 * A scalar subselect answering, as JSON, the account's payment method whose id is `idParam`, or when that parameter
 * is null the customer's default one (readPaymentMethod's and findDefaultPaymentMethod's rows): another module's
 * statement reads it with what it reads (an invoice's inputs). paymentMethodOfJson gives it Prisma's shape.
 */
export function paymentMethodOrDefaultJsonSql(accountParam: string, customerParam: string, idParam: string): string {
  return `coalesce(
    (SELECT ${jsonObjectOf(PAYMENT_METHOD_COLUMNS, 'm')} FROM payment_methods m
      WHERE ${idParam}::text IS NOT NULL AND m.id = ${idParam}::text AND m.account_id = ${accountParam}),
    (SELECT ${jsonObjectOf(PAYMENT_METHOD_COLUMNS, 'm')} FROM customer_default_payment_methods d
      JOIN payment_methods m ON m.id = d.payment_method_id AND m.account_id = d.account_id AND m.customer_id = d.customer_id
      WHERE ${idParam}::text IS NULL AND d.account_id = ${accountParam} AND d.customer_id = ${customerParam}))`;
}

/** A row paymentMethodOrDefaultJsonSql answered, in Prisma's shape. */
export function paymentMethodOfJson(row: Record<string, unknown>): PaymentMethod {
  return modelOfRow(PAYMENT_METHOD_COLUMNS, row);
}

/** The account's payment method, or null. */
export async function readPaymentMethod(db: Queryable, accountId: string, id: string): Promise<PaymentMethod | null> {
  const [method] = await queryModels(db, PAYMENT_METHOD_COLUMNS, PAYMENT_METHOD_BY_ID, [id, accountId]);
  return method ?? null;
}

const PAYMENT_METHOD_ID_TAKEN: Statement = {
  name: 'payment_method_id_taken',
  text: 'SELECT 1 AS taken FROM payment_methods WHERE id = $1',
};

/** Whether any account holds a payment method with this id (a processor's id is unique among them all). */
export async function paymentMethodIdTaken(db: Queryable, id: string): Promise<boolean> {
  return (await queryRows(db, PAYMENT_METHOD_ID_TAKEN, [id])).length > 0;
}

/** The customer's default payment method, or null when the customer has none attached. */
export async function findDefaultPaymentMethod(
  db: Queryable,
  accountId: string,
  customerId: string,
): Promise<PaymentMethod | null> {
  const [method] = await queryModels(db, PAYMENT_METHOD_COLUMNS, DEFAULT_PAYMENT_METHOD, [accountId, customerId]);
  return method ?? null;
}

const CUSTOMER_PROCESSOR_METHOD_IDS: Statement = {
  name: 'payment_methods_customer_processor_ids',
  text: `SELECT id FROM payment_methods WHERE account_id = $1 AND customer_id = $2 AND test_behavior = 'processor'
    ORDER BY attached_at, id`,
};

/** The ids of the customer's attached methods that a processor keeps (Stripe's), oldest attached first. */
export async function readCustomerProcessorMethodIds(
  db: Queryable,
  accountId: string,
  customerId: string,
): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, CUSTOMER_PROCESSOR_METHOD_IDS, [accountId, customerId]);
  return rows.map((row) => row.id);
}

const LOCK_CUSTOMER_METHODS: Statement = {
  name: 'payment_methods_lock_customer',
  text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
};

/**
 * Serialises attaching and detaching per customer until the caller's transaction ends, so two attaches
 * of one card cannot both be saved (src/payments/payment-method.service.ts, src/terminals/terminal-card.ts).
 */
export async function lockCustomerMethods(tx: AnyTx, customerId: string): Promise<void> {
  await execute(tx, LOCK_CUSTOMER_METHODS, [`payment-methods:${customerId}`]);
}

/** The customer's card with `fingerprint` attached first, or null. */
export function findCustomerCard(
  tx: Tx,
  accountId: string,
  customerId: string,
  fingerprint: string,
): Promise<PaymentMethod | null> {
  return tx.paymentMethod.findFirst({
    where: { accountId, customerId, fingerprint, type: 'card' },
    orderBy: { attachedAt: 'asc' },
  });
}

export function insertPaymentMethodRow(tx: Tx, data: Prisma.PaymentMethodUncheckedCreateInput): Promise<PaymentMethod> {
  return tx.paymentMethod.create({ data });
}

/** Makes `paymentMethodId` the customer's default when the customer has none. */
export async function defaultIfNone(
  tx: Tx,
  accountId: string,
  customerId: string,
  paymentMethodId: string,
): Promise<void> {
  const current = await tx.customerDefaultPaymentMethod.findUnique({
    where: { accountId_customerId: { accountId, customerId } },
  });
  if (!current) await tx.customerDefaultPaymentMethod.create({ data: { accountId, customerId, paymentMethodId } });
}

/** Writes `data` to the payment method's row and answers it. */
export function updatePaymentMethodRow(
  tx: Tx,
  id: string,
  data: Prisma.PaymentMethodUncheckedUpdateInput,
): Promise<PaymentMethod> {
  return tx.paymentMethod.update({ where: { id }, data });
}

/**
 * The customer's method of `fingerprint` and `type` attached first (the one it saved), or null; `exceptId` leaves a
 * method out (the one being attached), `attachedOnly` the detached ones.
 */
export function findSavedMethod(
  tx: Tx,
  accountId: string,
  customerId: string,
  like: { fingerprint: string; type: string; exceptId?: string; attachedOnly?: boolean },
): Promise<PaymentMethod | null> {
  return tx.paymentMethod.findFirst({
    where: {
      accountId,
      customerId,
      fingerprint: like.fingerprint,
      type: like.type,
      ...(like.attachedOnly ? { detachedAt: null } : {}),
      ...(like.exceptId ? { NOT: { id: like.exceptId } } : {}),
    },
    orderBy: { attachedAt: 'asc' },
  });
}

/** The customer's methods in the order they were attached (`asc`) or the reverse, ties by id. */
export function readCustomerMethods(
  db: Db | Tx,
  accountId: string,
  customerId: string,
  order: 'asc' | 'desc',
): Promise<PaymentMethod[]> {
  return db.paymentMethod.findMany({
    where: { accountId, customerId },
    orderBy: [{ attachedAt: order }, { id: order }],
  });
}

/** The customer's method attached first, ties by id, or null when it has none. */
export function firstAttachedMethod(tx: Tx, accountId: string, customerId: string): Promise<PaymentMethod | null> {
  return tx.paymentMethod.findFirst({
    where: { accountId, customerId },
    orderBy: [{ attachedAt: 'asc' }, { id: 'asc' }],
  });
}

/** The account's method `id` attached to the customer, or null. */
export function findCustomerMethod(
  db: Db,
  accountId: string,
  customerId: string,
  id: string,
): Promise<PaymentMethod | null> {
  return db.paymentMethod.findFirst({ where: { id, accountId, customerId } });
}

/** A page of the account's methods (of a customer, of a type), newest first, and how many there are. */
export function paymentMethodsPage(
  db: Db,
  accountId: string,
  filter: { customerId?: string; type?: string },
  window: { skip: number; take: number },
): Promise<[PaymentMethod[], number]> {
  const where: Prisma.PaymentMethodWhereInput = {
    accountId,
    ...(filter.customerId ? { customerId: filter.customerId } : {}),
    ...(filter.type ? { type: filter.type } : {}),
  };
  return Promise.all([
    db.paymentMethod.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...window }),
    db.paymentMethod.count({ where }),
  ]);
}

/** The customer's default method's row, or null when it has none. */
export function readDefaultMethodRow(
  db: Db | Tx,
  accountId: string,
  customerId: string,
): Promise<CustomerDefaultPaymentMethod | null> {
  return db.customerDefaultPaymentMethod.findUnique({ where: { accountId_customerId: { accountId, customerId } } });
}

/** Makes `paymentMethodId` the customer's default, whether it had one or not. */
export async function setDefaultMethod(
  tx: Tx,
  accountId: string,
  customerId: string,
  paymentMethodId: string,
): Promise<void> {
  await tx.customerDefaultPaymentMethod.upsert({
    where: { accountId_customerId: { accountId, customerId } },
    create: { accountId, customerId, paymentMethodId },
    update: { paymentMethodId },
  });
}

/** Hands the customer's default, which it has, to `paymentMethodId`. */
export async function moveDefaultMethod(
  tx: Tx,
  accountId: string,
  customerId: string,
  paymentMethodId: string,
): Promise<void> {
  await tx.customerDefaultPaymentMethod.update({
    where: { accountId_customerId: { accountId, customerId } },
    data: { paymentMethodId },
  });
}

/** Deletes the customer's default, which it has. */
export async function deleteDefaultMethod(tx: Tx, accountId: string, customerId: string): Promise<void> {
  await tx.customerDefaultPaymentMethod.delete({ where: { accountId_customerId: { accountId, customerId } } });
}

/** Deletes the customer's default, if it has one. */
export async function clearDefaultMethod(tx: Tx, accountId: string, customerId: string): Promise<void> {
  await tx.customerDefaultPaymentMethod.deleteMany({ where: { accountId, customerId } });
}
