/** Prometheus text as the tests read it (docs/operations.md, "Metrics and alerts"). */

/** The value of the sample `name` whose labels are exactly `labels` (any order), or undefined. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      found[key!] = value!;
    const keys = Object.keys(labels);
    if (Object.keys(found).length === keys.length && keys.every((key) => found[key] === labels[key]))
      return Number(match[3]);
  }
  return undefined;
}

/** Names of the metric families a text declares (`# TYPE name type`). */
export function families(text: string): Set<string> {
  return new Set([...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((match) => match[1]!));
}
