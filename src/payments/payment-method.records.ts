import { Prisma, type PaymentMethod } from '../generated/prisma/client';
import type { Tx } from '../db/prisma';
import {
  execute,
  modelColumns,
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
