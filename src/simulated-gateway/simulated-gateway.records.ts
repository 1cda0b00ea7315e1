import { Prisma, type GatewayCharge } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import {
  modelColumns,
  queryModels,
  queryRows,
  selectList,
  type AnyTx,
  type RowColumns,
  type Statement,
} from '../db/sql';

/** The simulated gateway's ledger (src/simulated-gateway/simulated-gateway.ts): gateway_charges rows. */

const GATEWAY_CHARGE_COLUMNS = modelColumns<GatewayCharge>(Prisma.GatewayChargeScalarFieldEnum, {
  bigint: ['amount'],
  date: ['createdAt'],
});

/** A charge under its key, once: one prepared statement (src/db/sql.ts), no row answered when the key is taken. */
const INSERT_CHARGE: Statement = {
  name: 'gateway_charge_insert',
  text: `INSERT INTO gateway_charges AS g (id, account_id, idempotency_key, kind, payment_method_id, amount, currency, status, failure_code, failure_message, retryable, description)
    VALUES ($1, $2, $3, 'charge', $4, $5::bigint, $6, $7, $8, $9, $10, $11)
    ON CONFLICT (account_id, idempotency_key) DO NOTHING
    RETURNING ${selectList(GATEWAY_CHARGE_COLUMNS, 'g')}`,
};

export type NewCharge = Pick<
  GatewayCharge,
  | 'id'
  | 'accountId'
  | 'idempotencyKey'
  | 'paymentMethodId'
  | 'currency'
  | 'status'
  | 'failureCode'
  | 'failureMessage'
  | 'retryable'
  | 'description'
> & { amount: number };

/** Inserts the charge unless its (account, idempotency key) holds a row already: the new row, or undefined. */
export async function insertCharge(prisma: Db, charge: NewCharge): Promise<GatewayCharge | undefined> {
  const [inserted] = await queryModels(prisma, GATEWAY_CHARGE_COLUMNS, INSERT_CHARGE, [
    charge.id,
    charge.accountId,
    charge.idempotencyKey,
    charge.paymentMethodId,
    String(charge.amount),
    charge.currency,
    charge.status,
    charge.failureCode,
    charge.failureMessage,
    charge.retryable,
    charge.description,
  ]);
  return inserted;
}

export type RefundedCharge = RowColumns<
  Pick<GatewayCharge, 'id' | 'accountId' | 'kind' | 'status' | 'amount' | 'currency'>
>;

const LOCK_CHARGE: Statement = {
  name: 'gateway_charge_lock',
  text: 'SELECT id, account_id AS "accountId", kind, status, amount, currency FROM gateway_charges WHERE id = $1 FOR UPDATE',
};

/** The charge a refund is for, locked until the caller's transaction ends, or undefined. */
export async function lockCharge(tx: AnyTx, chargeId: string): Promise<RefundedCharge | undefined> {
  const [charge] = await queryRows<RefundedCharge>(tx, LOCK_CHARGE, [chargeId]);
  return charge;
}

const CONFIRM_CHARGE: Statement = {
  name: 'gateway_charge_confirm',
  text: `UPDATE gateway_charges AS g SET status = 'succeeded'
    WHERE account_id = $1 AND idempotency_key = $2 AND kind = 'charge' AND status = 'requires_action'
    RETURNING ${selectList(GATEWAY_CHARGE_COLUMNS, 'g')}`,
};

/** A charge waiting for the customer's authentication, succeeded; undefined when none was waiting under the key. */
export async function confirmCharge(
  db: AnyTx | Db,
  accountId: string,
  idempotencyKey: string,
): Promise<GatewayCharge | undefined> {
  const [row] = await queryModels(db, GATEWAY_CHARGE_COLUMNS, CONFIRM_CHARGE, [accountId, idempotencyKey]);
  return row;
}

const SETTLE_DEBIT: Statement = {
  name: 'gateway_charge_settle_debit',
  text: `UPDATE gateway_charges AS g SET status = CASE WHEN failure_code IS NULL THEN 'succeeded' ELSE 'failed' END
    WHERE account_id = $1 AND id = $2 AND kind = 'charge' AND status = 'pending'
    RETURNING ${selectList(GATEWAY_CHARGE_COLUMNS, 'g')}`,
};

/** A pending bank debit given the verdict stored with it (a failure code: returned), once; undefined when none was pending. */
export async function settleDebit(
  db: AnyTx | Db,
  accountId: string,
  chargeId: string,
): Promise<GatewayCharge | undefined> {
  const [row] = await queryModels(db, GATEWAY_CHARGE_COLUMNS, SETTLE_DEBIT, [accountId, chargeId]);
  return row;
}

/** An account's charge or refund by id, or null. */
export function chargeById(db: Db, charge: { accountId: string; chargeId: string }): Promise<GatewayCharge | null> {
  return db.gatewayCharge.findFirst({ where: { id: charge.chargeId, accountId: charge.accountId } });
}

/** The row under an account's idempotency key (a charge or a refund), or null. */
export function chargeByKey(db: Db | Tx, accountId: string, idempotencyKey: string): Promise<GatewayCharge | null> {
  return db.gatewayCharge.findUnique({ where: { accountId_idempotencyKey: { accountId, idempotencyKey } } });
}

export function storedByKey(db: Db, accountId: string, idempotencyKey: string): Promise<GatewayCharge> {
  return db.gatewayCharge.findUniqueOrThrow({ where: { accountId_idempotencyKey: { accountId, idempotencyKey } } });
}

/** Cents refunded of a charge so far. */
export async function refundedOf(tx: Tx, chargeId: string): Promise<number> {
  const refunded = await tx.gatewayCharge.aggregate({
    where: { chargeId, kind: 'refund', status: 'succeeded' },
    _sum: { amount: true },
  });
  return Number(refunded._sum.amount ?? 0n);
}

export function insertRefund(
  tx: Tx,
  refund: Pick<GatewayCharge, 'id' | 'accountId' | 'idempotencyKey' | 'chargeId' | 'amount' | 'currency' | 'status'>,
): Promise<GatewayCharge> {
  return tx.gatewayCharge.create({ data: { ...refund, kind: 'refund' } });
}

/** The live test clock a payment method's customer is on: its debits settle on its time (docs/decisions.md §40). */
const METHOD_TEST_CLOCK: Statement = {
  name: 'gateway_method_test_clock',
  text: `SELECT c.id, c.frozen_time AS "frozenTime" FROM payment_methods pm
    JOIN customers cu ON cu.id = pm.customer_id
    JOIN test_clocks c ON c.id = cu.test_clock_id
    WHERE pm.id = $1 AND c.deleted_at IS NULL`,
};

/** The live test clock of the customer whose payment method `paymentMethodId` is, or null (the wall clock). */
export async function readMethodTestClock(
  db: Db,
  paymentMethodId: string,
): Promise<{ id: string; frozenTime: Date } | null> {
  const [clock] = await queryRows<{ id: string; frozenTime: Date }>(db, METHOD_TEST_CLOCK, [paymentMethodId]);
  return clock ?? null;
}

/** The pending debits of a test clock's customers: an advance waits for their settlement (docs/decisions.md §40). */
const CLOCK_PENDING_DEBITS: Statement = {
  name: 'gateway_clock_pending_debits',
  text: `SELECT g.id FROM gateway_charges g
    JOIN payment_methods pm ON pm.id = g.payment_method_id
    JOIN customers cu ON cu.id = pm.customer_id
    WHERE cu.test_clock_id = $1 AND g.kind = 'charge' AND g.status = 'pending'`,
};

/** Ids (`ch_...`) of the debits still pending of the customers on test clock `clockId`. */
export async function readClockPendingDebitIds(db: Db, clockId: string): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, CLOCK_PENDING_DEBITS, [clockId]);
  return rows.map((row) => row.id);
}
