import { z } from 'zod';
import { findMalformedText, resourceId, unixSecondsBound } from '../http/validation';

export const MAX_SEARCH_LENGTH = 2000;
export const MAX_FILTER_IDS = 100;

/** Unix seconds bounds, as in the spec's `created` filter. */
export const createdRange = z
  .strictObject({
    gt: unixSecondsBound.optional(),
    gte: unixSecondsBound.optional(),
    lt: unixSecondsBound.optional(),
    lte: unixSecondsBound.optional(),
  })
  .describe('Unix seconds');

/** `ids` of the JSON filter: comma-separated resource ids. */
export const commaSeparatedIds = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  )
  .pipe(z.array(resourceId).max(MAX_FILTER_IDS, `may name at most ${MAX_FILTER_IDS} ids`));

export type Search<F> = { text?: string; filter?: F };

/**
 * The spec's `search` query parameter: plain text, or (when it starts with `{`) a JSON object whose
 * keys are checked by `filter`. Malformed JSON and unknown keys are 400s naming `search` / `search.<key>`.
 */
export function jsonTextFilter<F extends z.ZodType>(filter: F, description: string) {
  return z
    .string()
    .max(MAX_SEARCH_LENGTH, `must be at most ${MAX_SEARCH_LENGTH} characters`)
    .default('')
    .transform((raw, ctx): Search<z.output<F>> => {
      const text = raw.trim();
      if (!text.startsWith('{')) return text === '' ? {} : { text };
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: 'is not valid JSON (a search starting with { is read as a JSON filter)',
          input: raw,
        });
        return z.NEVER;
      }
      const malformed = findMalformedText(parsed);
      if (malformed) {
        ctx.addIssue({ code: 'custom', path: malformed.path, message: malformed.problem, input: parsed });
        return z.NEVER;
      }
      const result = filter.safeParse(parsed);
      if (!result.success) {
        for (const issue of result.error.issues) {
          // Re-raised as custom issues (unknown keys excepted, which keep their key names) so the 400 says
          // what is wrong rather than "Required": the value lives in the JSON text, not in the query.
          if (issue.code === 'unrecognized_keys')
            ctx.addIssue({ code: 'unrecognized_keys', keys: issue.keys, path: issue.path, message: issue.message });
          else ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message, input: parsed });
        }
        return z.NEVER;
      }
      return { filter: result.data };
    })
    .describe(description);
}

export interface CreatedRange {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

export function createdWhere(range: CreatedRange | undefined) {
  if (!range) return undefined;
  const at = (seconds: number | undefined) => (seconds === undefined ? undefined : new Date(seconds * 1000));
  return { gt: at(range.gt), gte: at(range.gte), lt: at(range.lt), lte: at(range.lte) };
}
