import fc from 'fast-check';
import { LONE_SURROGATE } from '../../src/http/validation';
import { resolve, type OpenApiDocument, type Operation, type Schema } from './openapi-model';

// fast-check arbitraries of requests derived from the OpenAPI schemas: values the schema allows, and
// values it does not (wrong types, unknown fields, text PostgreSQL cannot store, numbers past every
// bound, bodies that are not JSON or not JSON objects, missing or unknown keys).

export interface FuzzRequest {
  method: string;
  /** Path with its parameters filled in and percent-encoded. */
  path: string;
  query: [string, string][];
  /** A JSON value, raw text, or nothing. */
  body?: { json: unknown } | { raw: string; contentType: string };
  /** 'valid', 'none' (no cc-api-key) or 'unknown' (a key that does not exist). */
  key: 'valid' | 'none' | 'unknown';
  /** Which arbitrary made the request, for the report. */
  kind: 'valid' | 'invalid';
}

/**
 * Ids the API answered so far, by the first segment of the path that answered them (`customers`,
 * `prices`, ...): path parameters and id fields pick from them, so requests reach existing resources.
 */
export class IdPool {
  private readonly byResource = new Map<string, string[]>();
  private readonly all: string[] = [];

  add(path: string, body: unknown): void {
    const resource = path.split('/')[1] ?? '';
    const record = (value: unknown) => {
      if (
        typeof value !== 'string' ||
        !/^([a-z]+_[A-Za-z0-9]{8,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.test(value)
      )
        return;
      const list = this.byResource.get(resource) ?? [];
      if (!list.includes(value)) {
        list.push(value);
        this.byResource.set(resource, list);
      }
      if (!this.all.includes(value)) this.all.push(value);
    };
    const items = Array.isArray(body)
      ? body
      : Array.isArray((body as { data?: unknown })?.data)
        ? (body as { data: unknown[] }).data
        : [body];
    for (const item of items) record((item as { id?: unknown })?.id);
  }

  /** An id answered under `resource`, else any id, else undefined; `pick` is a random natural. */
  pick(resource: string | undefined, pick: number): string | undefined {
    const list = (resource && this.byResource.get(resource)) || this.all;
    return list.length === 0 ? undefined : list[pick % list.length];
  }
}

const NASTY_TEXT = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '%',
  '%%',
  '_',
  '\\',
  '',
  ' ',
  '253402300800',
  '-1',
  '-0',
  '1e400',
  '1e21',
  'NaN',
  'Infinity',
  '9007199254740993',
  '9007199254740991',
  '0.5',
  'null',
  'true',
  '{}',
  '[]',
  '{"created":{"gt":253402300800}}',
  '{"created":{"lt":-1}}',
  '{"ids":"%,_"}',
  '{"active":"yes"}',
  '{',
  '\u{1F600}',
  '界'.repeat(700),
  'a'.repeat(3000),
  '../../etc/passwd',
  "'; DROP TABLE customers; --",
];

/** Text that tends to break things. */
export const nastyText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_TEXT), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 1 },
  // Text PostgreSQL cannot store or that is not Unicode, inside ordinary text.
  {
    arbitrary: fc
      .tuple(
        fc.string({ maxLength: 5 }),
        fc.constantFrom('\u0000', '\ud800', '\udc00', '\udbff'),
        fc.string({ maxLength: 5 }),
      )
      .map((parts) => parts.join('')),
    weight: 2,
  },
);

/** A JSON value of any type, with numbers past every bound. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: nastyText, weight: 3 },
  {
    arbitrary: fc.constantFrom(
      -1,
      0,
      1.5,
      1e308,
      -1e308,
      2 ** 53 + 2,
      253402300800,
      99999999 + 1,
      null,
      true,
      false,
      [],
      {},
    ),
    weight: 2,
  },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
);

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

const RESOURCE_ID_PATTERN = '^[a-z]+_[a-zA-Z0-9]+$';

/** Unix seconds from now to 300 days ahead (read when generated: the clock moves). */
const soon = fc.integer({ min: 60, max: 300 * 86_400 }).map((ahead) => Math.floor(Date.now() / 1000) + ahead);

/**
 * Values the code accepts for fields whose rules JSON Schema cannot say (refinements): without them
 * almost no generated body would get past validation, and the fuzzer would not reach the services.
 */
const HINTS: Record<string, fc.Arbitrary<unknown>> = {
  currency: fc.constantFrom('USD', 'usd'),
  country: fc.constantFrom('US', 'de'),
  shippingCountry: fc.constant('US'),
  tax_code: fc.constantFrom('txcd_10000000', 'txcd_99999999', null),
  number: fc.constantFrom('4242424242424242', '4000000000000002', '4000000000000119'),
  exp_month: fc.integer({ min: 1, max: 12 }),
  exp_year: fc.integer({ min: 2027, max: 2040 }),
  cvc: fc.constant('123'),
  routing_number: fc.constant('110000000'),
  account_number: fc.constantFrom('000123456789', '000111111116'),
  email: fc.constantFrom('ada@example.com', 'x.y+z@example.org'),
  url: fc.constantFrom('https://example.com/hook', 'http://example.org/a?b=c'),
  phone: fc.constantFrom('+1 555 0100', '(555) 010-0000'),
  start_date: soon,
  first_date: soon,
};

/** Values `schema` allows (as far as JSON Schema says: refinements in code may still refuse them). */
export function validValue(document: OpenApiDocument, raw: Schema, ids: IdPool, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(document, raw);
  if (!schema || Object.keys(schema).length === 0) return fc.jsonValue({ maxDepth: 1 });
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives)
    return fc.oneof(...(alternatives as Schema[]).map((option) => validValue(document, option, ids, depth + 1)));
  if (schema.allOf)
    return validValue(
      document,
      Object.assign({}, ...(schema.allOf as Schema[]).map((part) => resolve(document, part))),
      ids,
      depth + 1,
    );
  const arbitraries = typesOf(schema).map((type) => valueOfType(document, schema, type, ids, depth));
  return arbitraries.length === 0 ? fc.jsonValue({ maxDepth: 1 }) : fc.oneof(...arbitraries);
}

function valueOfType(
  document: OpenApiDocument,
  schema: Schema,
  type: string,
  ids: IdPool,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1e9);
      const max =
        schema.maximum ??
        (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : Math.max(min, 0) + 1e9);
      const integers = fc.integer({
        min: Math.ceil(Math.max(min, Number.MIN_SAFE_INTEGER)),
        max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)),
      });
      const edges = fc.constantFrom(...[min, max].filter((value) => Number.isSafeInteger(value)));
      return type === 'integer'
        ? fc.oneof(integers, edges)
        : fc.oneof(integers, edges, fc.double({ min, max, noNaN: true }));
    }
    case 'string':
      return stringValue(schema, ids);
    case 'array': {
      const item = schema.items ? validValue(document, schema.items, ids, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      const minLength = schema.minItems ?? 0;
      return fc.array(item, { minLength, maxLength: Math.min(schema.maxItems ?? minLength + 3, minLength + 3) });
    }
    case 'object': {
      if (depth > 4) return fc.constant({});
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set<string>(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) {
        const generated = validValue(document, property, ids, depth + 1);
        const hint = HINTS[name];
        record[name] = hint ? fc.oneof({ arbitrary: hint, weight: 3 }, { arbitrary: generated, weight: 1 }) : generated;
      }
      return fc.record(record, { requiredKeys: [...required].filter((name) => name in record) });
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function stringValue(schema: Schema, ids: IdPool): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 60, 300);
  const fits = (text: string) => text.length >= minLength && text.length <= (schema.maxLength ?? Infinity);
  if (schema.pattern) {
    const matching = fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
    if (schema.pattern !== RESOURCE_ID_PATTERN) return matching;
    const pattern = new RegExp(schema.pattern);
    const known = fc
      .nat()
      .map((pick) => ids.pick(undefined, pick))
      .filter((id): id is string => id !== undefined && pattern.test(id));
    return fc.oneof({ arbitrary: known, weight: 3 }, { arbitrary: matching, weight: 1 });
  }
  if (schema.format === 'email') return fc.oneof(fc.constant('ada@example.com'), fc.emailAddress()).filter(fits);
  if (schema.format === 'uri') return fc.webUrl().filter(fits);
  // Nasty text is valid JSON Schema text too (a NUL is a character): the server must answer it, with a 400 if it must.
  return fc.oneof(
    { arbitrary: fc.string({ minLength, maxLength }), weight: 3 },
    { arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength }).filter(fits), weight: 2 },
    { arbitrary: nastyText.filter(fits), weight: 1 },
  );
}

/** A body that breaks `schema`: another type, an unknown field, a field with a nasty value, or a required one missing. */
function invalidBody(document: OpenApiDocument, raw: Schema, ids: IdPool): fc.Arbitrary<FuzzRequest['body']> {
  const schema = resolve(document, raw);
  const properties = Object.keys(schema.properties ?? {});
  const valid = validValue(document, schema, ids) as fc.Arbitrary<Record<string, unknown>>;
  const objectMutations: fc.Arbitrary<unknown>[] = [
    fc
      .tuple(valid, fc.string({ minLength: 1, maxLength: 12 }), nastyValue)
      .map(([body, key, value]) => ({ ...body, [key]: value })),
  ];
  if (properties.length > 0) {
    objectMutations.push(
      fc
        .tuple(valid, fc.constantFrom(...properties), nastyValue)
        .map(([body, key, value]) => ({ ...body, [key]: value })),
      fc.tuple(valid, fc.constantFrom(...properties)).map(([body, key]) => {
        const copy = { ...body };
        delete copy[key];
        return copy;
      }),
    );
  }
  objectMutations.push(
    fc.tuple(valid, fc.nat(), nastyValue).map(([body, pick, value]) => replaceSomewhere(body, pick, value)),
  );
  return fc.oneof(
    fc.oneof(...objectMutations).map((json) => ({ json })),
    nastyValue.map((json) => ({ json })),
    fc
      .constantFrom('{', '{"a":', 'nul', '[1,]', '"\\ud800"', '{"name":"\\u0000"}')
      .map((text) => ({ raw: text, contentType: 'application/json' })),
    fc.string({ maxLength: 30 }).map((text) => ({ raw: text || 'x', contentType: 'text/plain' })),
  );
}

/** encodeURIComponent, except that a lone surrogate (which it refuses) is sent as the bytes of one (ED A0 80: not UTF-8). */
/** `value` with the `pick`-th (modulo) of its nested fields and items replaced by `replacement`. */
function replaceSomewhere(value: unknown, pick: number, replacement: unknown): unknown {
  const places: { parent: Record<string, unknown>; key: string }[] = [];
  const walk = (node: unknown) => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      places.push({ parent: node as Record<string, unknown>, key });
      walk(child);
    }
  };
  const copy = structuredClone(value);
  walk(copy);
  if (places.length === 0) return replacement;
  const { parent, key } = places[pick % places.length]!;
  parent[key] = replacement;
  return copy;
}

function encodeSegment(text: string): string {
  return text
    .split(LONE_SURROGATE)
    .map((part) => encodeURIComponent(part))
    .join('%ED%A0%80');
}

/** A path segment that keeps the request on the operation: not empty (`/x/` is `/x`), not `.` or `..` (URLs resolve them). */
function addressesThisOperation(segment: string): boolean {
  return segment !== '' && segment !== '.' && segment !== '..';
}

function encodePath(operation: Operation, values: Record<string, string>): string {
  return operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeSegment(values[name] ?? ''));
}

function queryText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Requests to `operation`: mostly valid ones (`invalidShare` of them broken in one place). */
export function requestArbitrary(
  document: OpenApiDocument,
  operation: Operation,
  ids: IdPool,
  invalidShare = 0.5,
): fc.Arbitrary<FuzzRequest> {
  const resource = operation.path.split('/')[1];
  const pathParams = operation.parameters.filter((parameter) => parameter.in === 'path');
  const queryParams = operation.parameters.filter((parameter) => parameter.in === 'query');

  const validPath: Record<string, fc.Arbitrary<string>> = {};
  for (const parameter of pathParams) {
    const known = fc
      .nat()
      .map((pick) =>
        ids.pick(parameter.name === 'id' || parameter.name === 'externalKey' ? resource : undefined, pick),
      );
    const generated = validValue(document, parameter.schema, ids).map(queryText);
    validPath[parameter.name] = fc.oneof(
      { arbitrary: known.filter((id): id is string => id !== undefined), weight: 4 },
      { arbitrary: generated, weight: 1 },
    );
  }
  const validQuery = fc
    .tuple(
      ...queryParams.map((parameter) =>
        fc.option(
          (parameter.name === 'search'
            ? fc.oneof(validValue(document, parameter.schema, ids), searchFilter)
            : validValue(document, parameter.schema, ids)
          ).map((value) => [parameter.name, queryText(value)] as [string, string]),
          { freq: 2 },
        ),
      ),
    )
    .map((entries) => entries.filter((entry): entry is [string, string] => entry !== null));
  const validBody = operation.body
    ? validValue(document, operation.body, ids).map((json) => ({ json }))
    : fc.constant(undefined);

  const valid = fc
    .record({ path: fc.record(validPath), query: validQuery, body: validBody })
    .map(({ path, query, body }): FuzzRequest => ({
      method: operation.method,
      path: encodePath(operation, path),
      query,
      body,
      key: 'valid',
      kind: 'valid',
    }));

  const breakages: fc.Arbitrary<(request: FuzzRequest, values: Record<string, string>) => FuzzRequest>[] = [
    fc
      .constantFrom<FuzzRequest['key']>('none', 'unknown')
      .map((key) => (request: FuzzRequest) => ({ ...request, key })),
    fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), nastyText).map(([name, value]) => (request: FuzzRequest) => ({
      ...request,
      query: [...request.query, [name, value] as [string, string]],
    })),
  ];
  if (queryParams.length > 0) {
    breakages.push(
      fc
        .tuple(fc.constantFrom(...queryParams.map((parameter) => parameter.name)), nastyValue)
        .map(([name, value]) => (request: FuzzRequest) => ({
          ...request,
          query: [...request.query.filter(([key]) => key !== name), [name, queryText(value)] as [string, string]],
        })),
    );
  }
  if (pathParams.length > 0) {
    breakages.push(
      fc
        .tuple(
          fc.constantFrom(...pathParams.map((parameter) => parameter.name)),
          nastyText.filter(addressesThisOperation),
        )
        .map(([name, value]) => (request: FuzzRequest, values) => ({
          ...request,
          path: encodePath(operation, { ...values, [name]: value }),
        })),
    );
  }
  if (operation.body) {
    breakages.push(
      invalidBody(document, operation.body, ids).map((body) => (request: FuzzRequest) => ({ ...request, body })),
    );
  }
  const invalid = fc
    .record({ path: fc.record(validPath), query: validQuery, body: validBody, breakage: fc.oneof(...breakages) })
    .map(({ path, query, body, breakage }): FuzzRequest => {
      const request: FuzzRequest = {
        method: operation.method,
        path: encodePath(operation, path),
        query,
        body,
        key: 'valid',
        kind: 'invalid',
      };
      return { ...breakage(request, path), kind: 'invalid' };
    });

  const weight = Math.round(invalidShare * 10);
  return fc.oneof({ arbitrary: valid, weight: 10 - weight }, { arbitrary: invalid, weight });
}

/** JSON `search` filters (products and prices) with keys right or wrong and dates in and out of range. */
const searchFilter: fc.Arbitrary<string> = fc
  .record(
    {
      active: fc.oneof(fc.boolean(), nastyValue),
      tax_code: fc.oneof(fc.constant('txcd_10000000'), nastyText),
      ids: fc.oneof(fc.constant('prod_abc,price_def'), nastyText),
      created: fc.record(
        { gt: fc.oneof(fc.nat(), nastyValue), lte: fc.oneof(fc.integer({ min: 0, max: 253402300799 }), nastyValue) },
        { requiredKeys: [] },
      ),
      currency: fc.constantFrom('USD', 'usd', 'XXX', '\u0000'),
      type: fc.constantFrom('one_time', 'recurring', 'other'),
    },
    { requiredKeys: [] },
  )
  .map((filter) => JSON.stringify(filter));
