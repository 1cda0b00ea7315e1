import type { z } from 'zod';

/**
 * A zod schema built on its first use. The worker instantiates every module of the workflow bundle
 * again for each workflow it creates or replays (reusable V8 context), so a schema built at module
 * load costs every workflow its construction and its memory in the cache, whether or not the
 * workflow ever parses anything (README, Performance). Built lazily, only the workflows that receive
 * an update pay for the schema they use.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): Pick<T, 'safeParse'> {
  let schema: T | undefined;
  return { safeParse: ((input: unknown) => (schema ??= build()).safeParse(input)) as T['safeParse'] };
}
