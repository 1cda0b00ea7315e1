import type { Db } from './prisma';
import {
  idsAfterPositionStatement,
  readCreatedPosition,
  readRowsAfterPosition,
  type BoundStatement,
  type ListPosition,
} from './sql';

/** What a list's Prisma read gets: the account and its filter (or the ids of a cursor page), and the page's window. */
export interface ListRead<Filter> {
  where: Filter & { accountId: string; id?: { in: string[] } };
  orderBy?: { createdAt?: 'desc'; id?: 'desc' }[];
  skip?: number;
  take?: number;
}

/**
 * A list of an account's rows newest first (created_at, id), filtered by equality on some columns: its table,
 * each filter field's column, and how Prisma reads and counts its rows (with what the list shows of each).
 */
export interface NewestFirstListSpec<Row extends { id: string }, Filter extends { [Field in keyof Filter]?: string }> {
  table: string;
  columns: { [Field in keyof Filter]-?: string };
  findMany: (db: Db, read: ListRead<Filter>) => Promise<Row[]>;
  count: (db: Db, where: ListRead<Filter>['where']) => Promise<number>;
}

/** The reads of one such list for an account and a filter, in the shape keysetListPage takes (src/http/pagination.ts). */
export interface NewestFirstListReads<Row> {
  /** Where the cursor's row of the account sits, or null (unknown, or another account's). */
  find: (id: string) => Promise<ListPosition | null>;
  /** `take` + 1 rows after (`forward`) or before `at`, in the list's order read that way (docs/decisions.md §36). */
  after: (at: ListPosition, forward: boolean, take: number) => Promise<Row[]>;
  /** A page at an offset. */
  page: (take: number, skip: number) => Promise<Row[]>;
  count: () => Promise<number>;
}

/**
 * The four reads every such list makes, written once: a page at an offset and the count through Prisma, a cursor
 * page as the ids the list's index gives (idsAfterPositionStatement) and then their rows, the cursor's position.
 */
export function newestFirstList<Row extends { id: string }, Filter extends { [Field in keyof Filter]?: string }>(
  spec: NewestFirstListSpec<Row, Filter>,
) {
  const cursorStatement = (
    accountId: string,
    filter: Filter,
    window: { at: ListPosition; forward: boolean; take: number },
  ): BoundStatement => {
    const columns: [string, unknown][] = [['account_id', accountId]];
    for (const field of Object.keys(spec.columns) as (keyof Filter)[])
      columns.push([spec.columns[field], filter[field]]);
    return idsAfterPositionStatement(spec.table, columns, window);
  };
  const reads = (db: Db, accountId: string, filter: Filter): NewestFirstListReads<Row> => ({
    find: (id) => readCreatedPosition(db, spec.table, accountId, id),
    after: (at, forward, take) =>
      readRowsAfterPosition(db, cursorStatement(accountId, filter, { at, forward, take: take + 1 }), (ids) =>
        spec.findMany(db, { where: { ...filter, accountId, id: { in: ids } } }),
      ),
    page: (take, skip) =>
      spec.findMany(db, {
        where: { ...filter, accountId },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip,
        take,
      }),
    count: () => spec.count(db, { ...filter, accountId }),
  });
  return { reads, cursorStatement };
}
