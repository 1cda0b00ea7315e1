import type { Prisma, TestClock } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { queryRows, type AnyTx, type Statement } from '../db/sql';

const LOCK_TEST_CLOCK: Statement = {
  name: 'test_clock_lock',
  text: 'SELECT status, frozen_time AS "frozenTime" FROM test_clocks WHERE id = $1 FOR UPDATE',
};

/** The clock's status and time, its row locked until the caller's transaction ends; undefined for an unknown clock. */
export async function lockTestClock(
  tx: AnyTx,
  id: string,
): Promise<Pick<TestClock, 'status' | 'frozenTime'> | undefined> {
  const [clock] = await queryRows<Pick<TestClock, 'status' | 'frozenTime'>>(tx, LOCK_TEST_CLOCK, [id]);
  return clock;
}

/** A clock of the account that is not deleted, or null (another account's too). */
export function readLiveTestClock(db: Db | Tx, accountId: string, id: string): Promise<TestClock | null> {
  return db.testClock.findFirst({ where: { id, accountId, deletedAt: null } });
}

/** A clock a row names (a customer's), deleted or not. */
export function readTestClockRow(db: Db | Tx, id: string): Promise<TestClock> {
  return db.testClock.findUniqueOrThrow({ where: { id } });
}

export function insertTestClock(db: Db, data: Prisma.TestClockUncheckedCreateInput): Promise<TestClock> {
  return db.testClock.create({ data });
}

/** A page of the account's clocks that are not deleted, newest first, with how many there are. */
export async function readTestClockPage(
  db: Db,
  accountId: string,
  window: { skip: number; take: number },
): Promise<{ rows: TestClock[]; total: number }> {
  const where = { accountId, deletedAt: null };
  const [rows, total] = await Promise.all([
    db.testClock.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...window }),
    db.testClock.count({ where }),
  ]);
  return { rows, total };
}

export function updateTestClockRow(
  db: Db | Tx,
  id: string,
  data: Pick<Prisma.TestClockUpdateInput, 'status' | 'frozenTime' | 'deletedAt'>,
): Promise<TestClock> {
  return db.testClock.update({ where: { id }, data });
}

/**
 * Marks the clock ready if it is still advancing to `frozenTime` (a later advance keeps it advancing).
 * The row is locked first, by its id alone: the advance starts its workflow inside the transaction that marks
 * the clock advancing (docs/api.md, Test clocks, "How it works"), so the workflow can finish before that commit.
 * An UPDATE filtered on status and time judges the row by its last committed version (still ready, at the old
 * time) and skips it without waiting, which left the clock advancing for good; the lock waits for the commit,
 * and the UPDATE after it sees it.
 */
export async function markTestClockReady(db: Db, id: string, frozenTime: Date): Promise<void> {
  await db.$transaction(async (tx) => {
    await lockTestClock(tx, id);
    await tx.testClock.updateMany({ where: { id, status: 'advancing', frozenTime }, data: { status: 'ready' } });
  });
}
