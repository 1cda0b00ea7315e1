import { z } from 'zod';
import { DECIMAL_INTEGER, queryInteger } from './validation';

/** decisions.md §3: lists take `page` >= 1 and `take` 1..max (100, products 50), default 10. */
export function paginationQuery(maxTake = 100) {
  return {
    // Decimal digits only: `take=0x10` or a blank `page=` is 400 naming it (docs/api.md "Lists").
    page: queryInteger(z.number(DECIMAL_INTEGER).int().min(1).max(Number.MAX_SAFE_INTEGER))
      .default(1)
      .describe('Page number, from 1 (decimal digits)'),
    take: queryInteger(z.number(DECIMAL_INTEGER).int().min(1).max(maxTake))
      .default(10)
      .describe(`Page size, 1 to ${maxTake} (decimal digits)`),
  };
}

export interface PageParams {
  page: number;
  take: number;
}

export function pageWindow({ page, take }: PageParams): { skip: number; take: number } {
  return { skip: (page - 1) * take, take };
}

export interface Page<T> {
  data: T[];
  meta: { page: number; take: number; itemsTotal: number; pagesTotal: number };
}

export function pageEnvelope<T>(data: T[], itemsTotal: number, { page, take }: PageParams): Page<T> {
  return { data, meta: { page, take, itemsTotal, pagesTotal: Math.ceil(itemsTotal / take) } };
}

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    meta: z.object({ page: z.number(), take: z.number(), itemsTotal: z.number(), pagesTotal: z.number() }),
  });
}
