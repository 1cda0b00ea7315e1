import { queryRows, execute, type AnyTx, type Queryable, type Statement } from '../db/sql';

/** The rows of subscription_renewals (docs/architecture.md, "Data access"): one per billed period. */
export interface RenewalKey {
  subscriptionId: string;
  periodStart: Date;
}

// One statement where Prisma's upsert makes two, on every renewal and charged creation.
const INSERT_RENEWAL: Statement = {
  name: 'renewal_insert',
  text: `INSERT INTO subscription_renewals (subscription_id, period_start, account_id, period_end, invoice_id, status)
    VALUES ($1, $2, $3, $4, $5, 'invoiced')
    ON CONFLICT (subscription_id, period_start) DO NOTHING`,
};

/** The period's row, invoiced by `invoiceId`; a row already there is left as it is. */
export async function insertRenewal(
  db: Queryable,
  key: RenewalKey,
  accountId: string,
  periodEnd: Date,
  invoiceId: string,
): Promise<void> {
  await execute(db, INSERT_RENEWAL, [key.subscriptionId, key.periodStart, accountId, periodEnd, invoiceId]);
}

const SET_STATUS: Statement = {
  name: 'renewal_set_status',
  text: `UPDATE subscription_renewals SET status = $3, updated_at = now()
    WHERE subscription_id = $1 AND period_start = $2 AND ($4::text IS NULL OR status = $4)`,
};

/** Sets the period's status (only from `from` when given). */
export async function setRenewalStatus(tx: AnyTx, key: RenewalKey, status: string, from?: string): Promise<void> {
  await execute(tx, SET_STATUS, [key.subscriptionId, key.periodStart, status, from ?? null]);
}

/** A later attempt's record is never overwritten by an earlier one's (a retried activity). */
const RECORD_ATTEMPT: Statement = {
  name: 'renewal_attempt_record',
  text: `UPDATE subscription_renewals SET status = $3, attempt_count = $4, last_failure_code = $5, updated_at = now()
    WHERE subscription_id = $1 AND period_start = $2 AND attempt_count <= $4`,
};

export async function recordRenewalAttempt(
  db: Queryable,
  key: RenewalKey,
  status: string,
  attempt: number,
  failureCode: string | null,
): Promise<void> {
  await execute(db, RECORD_ATTEMPT, [key.subscriptionId, key.periodStart, status, attempt, failureCode]);
}

const LOCK_ATTEMPT_COUNT: Statement = {
  name: 'renewal_lock_attempt_count',
  text: `SELECT attempt_count AS "attemptCount" FROM subscription_renewals
    WHERE subscription_id = $1 AND period_start = $2 FOR UPDATE`,
};

/** The period's attempt count, its row locked until the caller's transaction ends; null without a row. */
export async function lockRenewalAttemptCount(tx: AnyTx, key: RenewalKey): Promise<number | null> {
  const [row] = await queryRows<{ attemptCount: number }>(tx, LOCK_ATTEMPT_COUNT, [
    key.subscriptionId,
    key.periodStart,
  ]);
  return row?.attemptCount ?? null;
}

const RENEWAL_INVOICE: Statement = {
  name: 'renewal_invoice',
  text: 'SELECT invoice_id AS "invoiceId" FROM subscription_renewals WHERE subscription_id = $1 AND period_start = $2',
};

/** The invoice that billed the period (null when none was made). */
export async function renewalInvoiceId(db: Queryable, key: RenewalKey): Promise<string | null> {
  const [row] = await queryRows<{ invoiceId: string | null }>(db, RENEWAL_INVOICE, [
    key.subscriptionId,
    key.periodStart,
  ]);
  return row?.invoiceId ?? null;
}
