import { Fragment, type ReactNode } from 'react';
import { Link } from '../router';
import { Empty, Failure, Loading } from './feedback';
import { Pager, PagesOf } from './lists';

/** One column of a Table, declared once: its header and how a row fills its cell. */
export interface Column<Row> {
  header: string;
  /** The header is named for screen readers only (a column of buttons). */
  headerHidden?: boolean;
  cell: (row: Row) => ReactNode;
  /** Where the cell's content links (the row's own page). */
  link?: (row: Row) => string | undefined;
  /** The cell's title (shown on hover): the whole of what the cell shortens. */
  title?: (row: Row) => string | undefined;
  /** A small line under the cell's content (an id, a reason). */
  note?: (row: Row) => ReactNode;
  /** Shown on wide screens only: hidden under 720 px, where the columns that matter less go (docs/decisions.md §35). */
  wide?: boolean;
  /** An amount of money: its figures aligned (tabular) and kept on one line. */
  money?: boolean;
  /** The cell names its row (`<th scope="row">`): a day in a table of figures by day. */
  rowHeader?: boolean;
  className?: string;
}

/**
 * How a table sits on the page: a card of its own, a denser card, inside a card already, scrolling in a box, or
 * bare (in a disclosure of a figure that is its card).
 */
type Frame = 'card' | 'compact' | 'inset' | 'scroll' | 'bare';
const FRAMES: Record<Frame, string | undefined> = {
  card: 'card table-card',
  compact: 'card table-card compact',
  inset: 'table-card',
  scroll: 'table-scroll',
  bare: undefined,
};

/**
 * The list's pages, for the pager under the table: a paginated list answer (`meta.pagesTotal`), or, for a list
 * answered as a plain array (GET /customers), whether there is a next page.
 */
export type Pages = { page: number; onPage: (page: number) => void } & (
  { list: { meta: { pagesTotal: number } } | undefined } | { hasNext: boolean }
);

const classes = (...names: (string | false | undefined)[]) => names.filter(Boolean).join(' ') || undefined;

/**
 * The dashboard's table: the columns declared once (header, cell, optional link and note, hidden on narrow
 * screens), the rows' read (loading, failure), their empty state and the pager of a paginated list. `detail` adds
 * a row under a row (a payload shown on demand), `caption` names the table for screen readers.
 */
export function Table<Row>(props: {
  columns: readonly (Column<Row> | false)[];
  rows: readonly Row[] | undefined;
  rowKey: (row: Row) => string | number;
  /** The read the rows come from: its loading line or its failure is shown instead. */
  query?: { isPending: boolean; isError: boolean; error: unknown };
  /** What is shown instead of an empty table (in a card; `quietEmpty` as a muted line). */
  empty?: ReactNode;
  quietEmpty?: boolean;
  caption?: string;
  frame?: Frame;
  className?: string;
  detail?: (row: Row) => { id: string; content: ReactNode } | undefined;
  /** The list's pages: the pager goes under the table (nothing for a single page). */
  pages?: Pages;
}) {
  if (!props.pages) return <TableBody {...props} />;
  return (
    <>
      <TableBody {...props} />
      {'list' in props.pages ? <PagesOf {...props.pages} /> : <Pager {...props.pages} />}
    </>
  );
}

function TableBody<Row>(props: Parameters<typeof Table<Row>>[0]) {
  const { query, rows, empty } = props;
  if (query?.isPending) return <Loading />;
  if (query?.isError) return <Failure error={query.error} />;
  if (!rows) return null;
  if (rows.length === 0 && empty !== undefined) {
    if (props.quietEmpty) return <p className="muted">{empty}</p>;
    return <Empty>{typeof empty === 'string' ? <p>{empty}</p> : empty}</Empty>;
  }
  const columns = props.columns.filter((column): column is Column<Row> => column !== false);
  const frame = FRAMES[props.frame ?? 'card'];
  const table = (
    <table className={props.className}>
      {props.caption && <caption className="visually-hidden">{props.caption}</caption>}
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.header} scope="col" className={classes(column.wide && 'hide-narrow')}>
              {column.headerHidden ? <span className="visually-hidden">{column.header}</span> : column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const detail = props.detail?.(row);
          return (
            <Fragment key={props.rowKey(row)}>
              <tr>
                {columns.map((column) => (
                  <Cell key={column.header} column={column} row={row} />
                ))}
              </tr>
              {detail && (
                <tr id={detail.id}>
                  <td colSpan={columns.length}>{detail.content}</td>
                </tr>
              )}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
  return frame ? <div className={frame}>{table}</div> : table;
}

function Cell<Row>({ column, row }: { column: Column<Row>; row: Row }) {
  const content = column.cell(row);
  const to = column.link?.(row);
  const note = column.note?.(row);
  const CellTag = column.rowHeader ? 'th' : 'td';
  return (
    <CellTag
      scope={column.rowHeader ? 'row' : undefined}
      title={column.title?.(row)}
      className={classes(column.className, column.money && 'amount', column.wide && 'hide-narrow')}
    >
      {to ? <Link to={to}>{content}</Link> : content}
      {note !== undefined && note !== null && note !== false && note !== '' && (
        <div className="muted small">{note}</div>
      )}
    </CellTag>
  );
}
