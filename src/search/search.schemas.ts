import { z } from 'zod';

/** What the search finds: the objects a support agent is asked about by id, number, name or email. */
export const SEARCH_OBJECTS = ['customer', 'subscription', 'invoice', 'payment_plan', 'credit_note'] as const;

/** Customers a name or email search lists at most (exact id and number matches come before them). */
export const SEARCH_CUSTOMER_HITS = 10;

export const searchQuery = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .describe(
      'An id (cus_, sub_, pp_, cn_, or an invoice UUID), an invoice or credit note number (INV-000012, or INV-12), or part of a customer name or email',
    ),
});

export const searchHitSchema = z
  .object({
    object: z.enum(SEARCH_OBJECTS),
    id: z.string(),
    title: z.string().describe('What a list of hits shows first: a name, an email, a number'),
    detail: z.string().nullable().describe('A second line: an email, or a status with an amount'),
    customer: z.string().nullable().describe('The customer the object belongs to (null for a customer)'),
    invoice: z.string().nullable().describe("A credit note's invoice (null for the others)"),
  })
  .meta({ id: 'SearchHit' });

export const searchResultSchema = z
  .object({
    object: z.literal('search_result'),
    query: z.string().describe('The query as read (trimmed)'),
    data: z
      .array(searchHitSchema)
      .describe(
        `The object an id or number names first; then customers by name or email (at most ${SEARCH_CUSTOMER_HITS})`,
      ),
  })
  .meta({ id: 'SearchResult' });

export type SearchHit = z.output<typeof searchHitSchema>;
export type SearchResult = z.output<typeof searchResultSchema>;
