/**
 * An exact count over a created range from a counter of rows per UTC day (docs/decisions.md §23, §34):
 * the full days of the range summed from the counter, the rows of its partial first and last days counted
 * from the table's index (at most two days' rows). The statements are the caller's module's; this only
 * joins them with the range's days.
 */
import { DAY_MS } from '../lib/durations';

/** `YYYY-MM-DD` for PostgreSQL; a day past 9999 (a bound of a second before the year 10000) keeps its five digits. */
function dateText(day: number): string {
  const date = new Date(day * DAY_MS);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}`;
}

export interface DayCountParts {
  /** `SELECT coalesce(sum(n), 0)::bigint FROM <counter> WHERE ...`: the counter's rows of the filters, any day (its `day` column is added). */
  counter: string;
  /** `SELECT count(*)::bigint FROM <table> WHERE ...`: the table's rows of the filters, any time. */
  rows: string;
  /** The table's creation time column, as `rows` names it. */
  created: string;
  /** created >= from (inclusive) */
  from?: Date | undefined;
  /** created < until (exclusive) */
  until?: Date | undefined;
}

/**
 * The text of `SELECT (...)::bigint AS n`, numbering its values after `values` (which it extends), or
 * null when the range holds no full UTC day (the caller counts its rows: at most two days' worth).
 */
export function dayCountText(values: unknown[], parts: DayCountParts): string | null {
  const { from, until } = parts;
  // Full days: from the first day that starts at or after `from` to the day that holds `until`.
  const firstDay = from === undefined ? undefined : Math.ceil(from.getTime() / DAY_MS);
  const endDay = until === undefined ? undefined : Math.floor(until.getTime() / DAY_MS);
  if (firstDay !== undefined && endDay !== undefined && firstDay >= endDay) return null;
  values.push(
    firstDay === undefined ? '-infinity' : dateText(firstDay),
    endDay === undefined ? 'infinity' : dateText(endDay),
  );
  const days = `${parts.counter} AND day >= $${values.length - 1}::date AND day < $${values.length}::date`;
  const edges: string[] = [];
  const edge = (start: Date, end: Date) => {
    values.push(start, end);
    edges.push(
      `(${parts.rows} AND ${parts.created} >= $${values.length - 1} AND ${parts.created} < $${values.length})`,
    );
  };
  if (from !== undefined && from.getTime() < firstDay! * DAY_MS) edge(from, new Date(firstDay! * DAY_MS));
  if (until !== undefined && until.getTime() > endDay! * DAY_MS) edge(new Date(endDay! * DAY_MS), until);
  return `SELECT ((${days})${edges.map((text) => ` + ${text}`).join('')})::bigint AS n`;
}
