/** A process's copy of reads by key, each kept `ms` (see `expiringCache`). */
export interface ExpiringCache<T> {
  /** The value kept for `key`, else `read()`'s, kept from now on (a read that fails is not kept). */
  get(key: string, read: () => Promise<T>): Promise<T>;
  /** Drops what is kept for `key`: the process that changed it reads it again at once. */
  forget(key: string): void;
  /** Drops everything kept: changes may have been missed. */
  forgetAll(): void;
}

/**
 * Reads kept per process for `ms`, as promises, so callers at the same moment share one read. Other processes
 * see a change when they are told of it, or within `ms` (docs/decisions.md §48). Past `size` keys it starts afresh rather than grow.
 */
export function expiringCache<T>(ms: number, size = 10_000): ExpiringCache<T> {
  const kept = new Map<string, { until: number; value: Promise<T> }>();
  return {
    get(key, read) {
      const now = Date.now();
      const held = kept.get(key);
      if (held && held.until > now) return held.value;
      if (kept.size >= size) kept.clear();
      const entry = { until: now + ms, value: read() };
      kept.set(key, entry);
      entry.value.catch(() => {
        if (kept.get(key) === entry) kept.delete(key);
      });
      return entry.value;
    },
    forget(key) {
      kept.delete(key);
    },
    forgetAll() {
      kept.clear();
    },
  };
}
