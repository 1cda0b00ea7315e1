import type { TestClock } from '../generated/prisma/client';
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
