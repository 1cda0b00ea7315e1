import { z } from 'zod';

/** decisions.md §3: lists take `page` >= 1 and `take` 1..max (100, products 50), default 10. */
export function paginationQuery(maxTake = 100) {
  return {
    page: z.coerce.number().int().min(1).default(1).describe('Page number, from 1'),
    take: z.coerce.number().int().min(1).max(maxTake).default(10).describe(`Page size, 1 to ${maxTake}`),
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
