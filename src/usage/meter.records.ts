import type { Meter } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import {
  idsAfterPositionStatement,
  queryRows,
  readCreatedPosition,
  readRowsAfterPosition,
  type ListPosition,
  type Queryable,
  type Statement,
} from '../db/sql';

export type { Meter };

export function insertMeter(tx: Db | Tx, meter: Omit<Meter, 'status' | 'updatedAt'>): Promise<Meter> {
  return tx.meter.create({ data: meter });
}

/** The account's meter named `eventName` (one per event name), or null. */
export function findMeterByEventName(db: Db | Tx, accountId: string, eventName: string): Promise<Meter | null> {
  return db.meter.findUnique({ where: { accountId_eventName: { accountId, eventName } } });
}

/** The account's meter, or null (another account's too). */
export function findMeter(db: Db | Tx, accountId: string, id: string): Promise<Meter | null> {
  return db.meter.findFirst({ where: { id, accountId } });
}

/** The account's meter locked FOR UPDATE until the transaction ends (a change of how it aggregates), or null. */
export async function lockMeter(tx: Tx, accountId: string, id: string): Promise<Meter | null> {
  const rows = await tx.$queryRaw<
    { id: string }[]
  >`SELECT id FROM meters WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`;
  return rows.length === 0 ? null : tx.meter.findUnique({ where: { id } });
}

export function updateMeterRow(
  tx: Tx,
  id: string,
  data: Partial<Pick<Meter, 'name' | 'aggregation' | 'valueProperty' | 'status'>> & { updatedAt: Date },
): Promise<Meter> {
  return tx.meter.update({ where: { id }, data });
}

/**
 * The active meters of the account ($1) named by the SQL parameter `eventNames`, for a batch of usage events,
 * locked FOR SHARE until the batch's transaction ends: a change of aggregation or a deactivation (FOR UPDATE)
 * waits for the batch, then sees its events, and a batch waits for them, then sees the meter as it became.
 * The batch reads them in the statement that reads its customers' windows (usageWindowsAndMeters).
 */
export const activeMetersNamedSql = (account: string, eventNames: string) => `SELECT event_name, aggregation,
      value_property FROM meters
    WHERE account_id = ${account} AND event_name = ANY(${eventNames}) AND status = 'active'
    ORDER BY event_name FOR SHARE`;

export interface MeterRule {
  eventName: string;
  aggregation: string;
  valueProperty: string | null;
}

export interface MeterRuleRow {
  event_name: string;
  aggregation: string;
  value_property: string | null;
}

export function meterRuleOf(row: MeterRuleRow): MeterRule {
  return { eventName: row.event_name, aggregation: row.aggregation, valueProperty: row.value_property };
}

const METER_RULE: Statement = {
  name: 'meter_rule',
  text: 'SELECT event_name, aggregation, value_property FROM meters WHERE account_id = $1 AND id = $2',
};

/** How the account's meter `id` adds up events, whatever its status; null when unknown or another account's. */
export async function meterRule(db: Queryable, accountId: string, id: string): Promise<MeterRule | null> {
  const [row] = await queryRows<MeterRuleRow>(db, METER_RULE, [accountId, id]);
  return row ? meterRuleOf(row) : null;
}

export interface MeterFilter {
  status?: string;
}

export function readMeterPage(
  db: Db,
  accountId: string,
  filter: MeterFilter,
  window: { skip: number; take: number },
): Promise<Meter[]> {
  return db.meter.findMany({
    where: { accountId, ...filter },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    ...window,
  });
}

export function countMeters(db: Db, accountId: string, filter: MeterFilter): Promise<number> {
  return db.meter.count({ where: { accountId, ...filter } });
}

/** `take` of the account's meters after (`forward`) or before `at`, newest first (docs/decisions.md §36). */
export function readMetersAfter(
  db: Db,
  accountId: string,
  filter: MeterFilter,
  window: { at: ListPosition; forward: boolean; take: number },
): Promise<Meter[]> {
  const bound = idsAfterPositionStatement(
    'meters',
    [
      ['account_id', accountId],
      ['status', filter.status],
    ],
    window,
  );
  return readRowsAfterPosition(db, bound, (ids) => db.meter.findMany({ where: { accountId, id: { in: ids } } }));
}

export function readMeterPosition(db: Db, accountId: string, id: string): Promise<ListPosition | null> {
  return readCreatedPosition(db, 'meters', accountId, id);
}
