/** The API speaks Unix seconds. */
export function toUnixSeconds(date: Date): number;
export function toUnixSeconds(date: Date | null | undefined): number | null;
export function toUnixSeconds(date: Date | null | undefined): number | null {
  return date ? Math.floor(date.getTime() / 1000) : null;
}

export function fromUnixSeconds(seconds: number): Date {
  return new Date(seconds * 1000);
}

/** A `created` filter's bounds, each optional (GET /invoices, GET /events). */
export interface TimeBounds {
  gt?: Date | undefined;
  gte?: Date | undefined;
  lt?: Date | undefined;
  lte?: Date | undefined;
}

/**
 * The bounds as one half-open range [from, until), the tightest of each side: times are stored to the
 * millisecond, so `> t` is `>= t + 1 ms` and `<= t` is `< t + 1 ms`.
 */
export function halfOpenRange(bounds: TimeBounds): { from?: Date; until?: Date } {
  const shifted = (time: Date | undefined, ms: number) => (time === undefined ? [] : [time.getTime() + ms]);
  const froms = [...shifted(bounds.gt, 1), ...shifted(bounds.gte, 0)];
  const untils = [...shifted(bounds.lt, 0), ...shifted(bounds.lte, 1)];
  return {
    ...(froms.length ? { from: new Date(Math.max(...froms)) } : {}),
    ...(untils.length ? { until: new Date(Math.min(...untils)) } : {}),
  };
}
