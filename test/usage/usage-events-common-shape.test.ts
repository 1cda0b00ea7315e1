import fc from 'fast-check';
import { commonUsageEventsBody, createUsageEventsBody } from '../../src/usage/usage-event.schemas';

// POST /usage-events checks the common shape of a batch without zod (docs/performance.md, "Usage ingestion"):
// whatever that check accepts, the schema accepts too, with the same output; what it leaves, the schema names.

/** Values a field may take: mostly valid ones (so that most batches are), else the near misses the schema refuses. */
const mostly = <T>(valid: fc.Arbitrary<T>, ...others: fc.Arbitrary<unknown>[]) =>
  fc.oneof({ arbitrary: valid, weight: 40 }, ...others.map((arbitrary) => ({ arbitrary, weight: 1 })));
const text = (valid: fc.Arbitrary<string>) =>
  mostly(valid, fc.string({ maxLength: 110 }), fc.constantFrom('', ' ', 'a b', '\u00e9', 'x'.repeat(101)));
const number = fc.oneof(
  fc.integer({ min: -5, max: 2_000_000_000 }),
  fc.double(),
  fc.constantFrom(0, 1, 253_402_300_799, 253_402_300_800, Number.MAX_SAFE_INTEGER + 2, Infinity, -Infinity, NaN),
);
const anyJson = fc.oneof(fc.constant(null), fc.boolean(), number, fc.string({ maxLength: 5 }), fc.constant([]));
const eventId = fc.stringMatching(/^[\x21-\x7e]{1,100}$/);
const eventName = fc.stringMatching(/^[A-Za-z0-9_.:-]{1,100}$/);
const customerId = fc.stringMatching(/^[a-z]{1,4}_[a-zA-Z0-9]{1,59}$/);
const propertyValue = mostly(
  fc.oneof(
    fc.string({ maxLength: 100 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
  ),
  fc.string({ minLength: 101, maxLength: 101 }),
  number,
  fc.constant(null),
  fc.constant({}),
);
const properties = mostly(
  fc.dictionary(
    fc.oneof(
      { arbitrary: fc.string({ minLength: 1, maxLength: 40 }), weight: 40 },
      { arbitrary: fc.constantFrom('', 'x'.repeat(41)), weight: 1 },
    ),
    propertyValue,
    {
      maxKeys: 11,
    },
  ),
  fc.constant(undefined),
  anyJson,
);

const event = fc
  .record(
    {
      id: mostly(text(eventId), anyJson),
      event_name: mostly(text(eventName), anyJson),
      customer: mostly(text(customerId), anyJson),
      timestamp: mostly(fc.integer({ min: 1, max: 253_402_300_799 }), number, anyJson),
      properties,
      extra: mostly(fc.constant(undefined), anyJson),
    },
    { requiredKeys: ['id', 'event_name', 'customer', 'timestamp'] },
  )
  .map((fields) => JSON.parse(JSON.stringify(fields)) as unknown);

const body = mostly(
  fc.record({ events: fc.array(event, { minLength: 0, maxLength: 4 }) }),
  fc.record({ events: fc.array(event, { maxLength: 2 }), other: anyJson }),
  fc.record({ events: anyJson }),
  anyJson,
);

describe('the common shape of a batch of usage events', () => {
  it('accepts nothing the schema refuses, and answers what the schema answers', () => {
    let accepted = 0;
    fc.assert(
      fc.property(body, (input) => {
        const common = commonUsageEventsBody(input);
        if (common === undefined) return;
        accepted++;
        const parsed = createUsageEventsBody.safeParse(input);
        expect(parsed.success).toBe(true);
        expect(common).toEqual(parsed.data);
      }),
      { numRuns: 10_000 },
    );
    // Most batches are valid, so the comparison is made on many of them.
    expect(accepted).toBeGreaterThan(1000);
  });

  it('takes a valid batch of 1,000 events, with or without properties, as the schema does', () => {
    const events = Array.from({ length: 1000 }, (_, index) => ({
      id: `evt-${index}`,
      event_name: 'api_call',
      customer: 'cus_abc123',
      timestamp: 1_800_000_000 + index,
      ...(index % 2 === 0 ? { properties: { tokens: index, region: 'eu', cached: false } } : {}),
    }));
    const input = JSON.parse(JSON.stringify({ events })) as unknown;
    const common = commonUsageEventsBody(input);
    expect(common).toBeDefined();
    expect(common).toEqual(createUsageEventsBody.parse(input));
  });

  it('leaves to the schema a batch past 1,000 events, an empty one, and one bad event among good ones', () => {
    const good = { id: 'e', event_name: 'api_call', customer: 'cus_abc', timestamp: 1_800_000_000 };
    expect(commonUsageEventsBody({ events: Array.from({ length: 1001 }, () => good) })).toBeUndefined();
    expect(commonUsageEventsBody({ events: [] })).toBeUndefined();
    for (const bad of [
      { ...good, timestamp: 1.5 },
      { ...good, customer: 'cus_' },
      { ...good, properties: { '': 1 } },
      { ...good, properties: JSON.parse('{"__proto__": 1}') as object },
      { ...good, properties: { big: Infinity } },
      { ...good, unknown: 1 },
    ])
      expect(commonUsageEventsBody({ events: [good, bad] })).toBeUndefined();
  });
});
