import { ID_PREFIXES } from '../lib/ids';

/**
 * Examples for /openapi.json, made from the schemas themselves so that they cannot drift from them:
 * every JSON request and response body without an example gets one (test/api/openapi.test.ts checks each
 * against its schema). Request examples carry the required fields only (optional ones can exclude
 * each other); answers carry every field.
 */
type Schema = Record<string, unknown>;
interface Document {
  paths?: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}
interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema; example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema; example?: unknown }> }>;
}

const ID_BODY = '4f1XbQ9kT2mZ7cR8vL3nP6sW';
const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';
/** 2026-01-01T00:00:00Z */
const A_TIME = 1_767_225_600;

/** A card expiry year still ahead whenever the document is generated. */
const CARD_EXPIRY_YEAR = new Date().getUTCFullYear() + 5;

/**
 * Request examples the schemas alone would get wrong: rules between fields (a recurring price needs
 * `recurring`, a `Custom` tax rate its `display_name`), a test card that passes Luhn and has not expired,
 * a clock advanced forward. Each is sent to the running API by test/api/openapi-examples.test.ts (real
 * ids put in place of these), which expects it accepted; test/api/openapi.test.ts checks each against
 * its schema.
 */
const REQUEST_EXAMPLES: Record<string, unknown> = {
  'put /settings/gateway': {
    processor: 'stripe',
    secret_key: 'sk_test_51ExampleKeyOnly0000',
    webhook_secret: 'whsec_ExampleSigningSecret0000',
  },
  'post /products': {
    name: 'Pro plan',
    currency: 'USD',
    unit_amount: 2500,
    type: 'recurring',
    recurring: { interval: 'month', interval_count: 1 },
    tax_behavior: 'exclusive',
  },
  'post /prices/{id}': {
    currency: 'USD',
    unit_amount: 2500,
    type: 'recurring',
    recurring: { interval: 'month', interval_count: 1 },
  },
  'patch /prices/{id}/inactive': { unit_amount: 3000, description: 'Pro plan, yearly billing' },
  'post /taxRates': { display_name: 'Sales tax', percentage: 8.25, inclusive: false },
  'patch /taxRates/{id}': { display_name: 'CA sales tax', description: 'California state sales tax' },
  'post /payment-methods': {
    type: 'card',
    card: { number: '4242424242424242', exp_month: 12, exp_year: CARD_EXPIRY_YEAR, cvc: '123' },
    billing_details: { name: 'Ada Lovelace' },
  },
  'post /payment-plans': {
    customer: `cus_${ID_BODY}`,
    total_amount: 120000,
    currency: 'USD',
    installments_count: 12,
    interval: 'month',
  },
  'post /invoices/{id}/refund': { amount: 500 },
  // `amount` or `lines`, and `refund_to` on a paid invoice (docs/decisions.md §22).
  'post /credit-notes': { invoice: UUID, amount: 500, reason: 'order_change', refund_to: 'customer_balance' },
  // percent_off or amount_off, and duration_in_months with repeating (docs/decisions.md §37).
  'post /coupons': { name: 'Spring sale', percent_off: 25, duration: 'repeating', duration_in_months: 3 },
  'post /payment-plans/{id}/payments': { external: true, external_reference: 'cheque 1042' },
  'post /payment-plans/{id}/payments/{payment_id}/refund': { amount: 500 },
  'post /subscriptions': {
    customer: `cus_${ID_BODY}`,
    items: [{ price: `price_${ID_BODY}`, quantity: 1 }],
    trial_days: 0,
    start_date: A_TIME,
  },
  'patch /subscriptions/{id}': { items: [{ id: `si_${ID_BODY}`, quantity: 2 }] },
  'post /test-helpers/test-clocks': { frozen_time: A_TIME, name: 'Renewal rehearsal' },
  // value_property with every aggregation but count (docs/api.md, "Usage-based billing").
  'post /meters': { name: 'API calls', event_name: 'api_call', aggregation: 'count' },
  // An active meter's event name, and a time neither in the future nor too long ago when the document is made.
  'post /usage-events': {
    events: [
      {
        id: 'call-7421',
        event_name: 'api_call',
        customer: `cus_${ID_BODY}`,
        timestamp: Math.floor(Date.now() / 1000) - 60,
      },
    ],
  },
  'post /test-helpers/test-clocks/{id}/advance': { frozen_time: A_TIME + 86_400 },
};

/** Strings for the patterns the schemas use, where a name-based guess would not match. */
const PATTERN_EXAMPLES: Record<string, string> = {
  '^[\\x21-\\x7e]{1,255}$': 'order-7421-attempt-1',
  '^(pm_[a-zA-Z0-9]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$': `pm_${ID_BODY}`,
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$': UUID,
  '^[0-9+()\\-. ]*$': '+1 (555) 010-0199',
  '^txcd_[a-zA-Z0-9]+$': 'txcd_10000000',
  '^-?\\d+$': '2500',
  '^\\d{3,4}$': '123',
  '^\\d{4,17}$': '000123456789',
  '^[a-z_]+(\\.[a-z_]+)+$': 'invoice.payment_failed',
  '^t=\\d+,v1=[0-9a-f]{64}$': `t=${A_TIME},v1=${'5d'.repeat(32)}`,
  '^evt_[a-zA-Z0-9]+$': `evt_${ID_BODY}`,
  '^[\\x21-\\x7e]{1,100}$': 'call-7421',
  '^[A-Za-z0-9_.:-]+$': 'api_call',
};

const STRING_BY_NAME: Record<string, string> = {
  currency: 'USD',
  country: 'US',
  name: 'Acme Inc.',
  email: 'billing@acme.example',
  url: 'https://hooks.acme.example/billing',
  description: 'Pro plan',
  line1: '1 Market Street',
  city: 'San Francisco',
  state: 'CA',
  postal_code: '94105',
  createdAt: '2026-01-01T00:00:00.000Z',
  message: 'No such customer: cus_4f1XbQ9kT2mZ7cR8vL3nP6sW',
  code: 'resource_missing',
  param: 'customer',
};

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** The id prefix a property names (`customer`, `default_payment_method`, `tax_rates`), if any; invoices have UUIDs. */
function idPrefixOf(key: string | undefined): string | undefined {
  if (!key) return undefined;
  const prefixes: Record<string, string> = { ...ID_PREFIXES, invoice: '', line: 'il', lineItem: 'il' };
  const bare = key.replace(/^(default|latest)_/, '');
  return [key, bare, bare.replace(/s$/, '')]
    .map((candidate) => prefixes[camel(candidate)])
    .find((prefix) => prefix !== undefined);
}

/** An id for a property: its own name or, for `id`, the enclosing object's `object`. */
function idFor(property: string | undefined, objectName: string | undefined): string {
  const prefix = idPrefixOf(property === 'id' ? objectName : property) ?? 'obj';
  return prefix === '' ? UUID : `${prefix}_${ID_BODY}`;
}

function textFor(property: string | undefined): string {
  if (!property) return 'text';
  if (STRING_BY_NAME[property]) return STRING_BY_NAME[property];
  const suffix = Object.keys(STRING_BY_NAME).find((name) => property.endsWith(`_${name}`));
  if (suffix) return STRING_BY_NAME[suffix]!;
  if (property.endsWith('phone')) return '+1 (555) 010-0199';
  return idPrefixOf(property) !== undefined ? idFor(property, undefined) : 'text';
}

function sampleString(schema: Schema, property: string | undefined, objectName: string | undefined): string {
  const pattern = schema.pattern as string | undefined;
  if (pattern === '^[a-z]+_[a-zA-Z0-9]+$') return idFor(property, objectName);
  if (pattern && PATTERN_EXAMPLES[pattern]) return PATTERN_EXAMPLES[pattern];
  if (schema.format === 'email') return 'billing@acme.example';
  if (schema.format === 'uri') return 'https://hooks.acme.example/billing';
  if (schema.format === 'date-time') return '2026-01-01T00:00:00.000Z';
  if (property === 'id' || property?.endsWith('_id'))
    return idFor(property === 'id' ? 'id' : property.slice(0, -3), objectName);
  const text = textFor(property);
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = (schema.maxLength as number | undefined) ?? Infinity;
  return text.padEnd(minLength, 'x').slice(0, maxLength);
}

function sampleNumber(schema: Schema, property: string | undefined): number {
  const name = property ?? '';
  let value = /amount|^total$|subtotal|^tax$|balance/.test(name)
    ? 2500
    : /created|updated$|_at$|date|start|end|anchor|period/.test(name)
      ? A_TIME
      : 1;
  if (name === 'updated_ms') value = A_TIME * 1000;
  if (name === 'percentage') value = 8.25;
  const minimum = (schema.minimum as number | undefined) ?? (schema.exclusiveMinimum as number | undefined);
  const maximum = (schema.maximum as number | undefined) ?? (schema.exclusiveMaximum as number | undefined);
  if (minimum !== undefined && value < minimum) value = minimum + (schema.exclusiveMinimum !== undefined ? 1 : 0);
  if (maximum !== undefined && value > maximum) value = maximum - (schema.exclusiveMaximum !== undefined ? 1 : 0);
  return schema.type === 'integer' ? Math.round(value) : value;
}

export function sampleOf(
  document: Document,
  schema: Schema,
  mode: 'request' | 'response',
  property?: string,
  objectName?: string,
  depth = 0,
): unknown {
  if (depth > 12) return null;
  const next = (inner: Schema, name?: string, enclosing?: string) =>
    sampleOf(document, inner, mode, name, enclosing, depth + 1);
  if (typeof schema.$ref === 'string')
    return next(document.components?.schemas?.[schema.$ref.split('/').pop()!] ?? {}, property, objectName);
  if ('example' in schema) return schema.example;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) {
    // A currency or country list's first entry (AED, AD) reads as a strange example; its usual one if listed.
    const usual = property === undefined ? undefined : STRING_BY_NAME[property];
    return usual !== undefined && schema.enum.includes(usual) ? usual : schema.enum[0];
  }
  if ('default' in schema && schema.default !== undefined && mode === 'request') return schema.default;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return next(branches.find((branch) => branch.type !== 'null') ?? branches[0]!, property, objectName);
  if (Array.isArray(schema.allOf))
    return Object.assign({}, ...(schema.allOf as Schema[]).map((part) => next(part, property, objectName)));
  const type = Array.isArray(schema.type)
    ? (schema.type as string[]).find((candidate) => candidate !== 'null')
    : (schema.type as string | undefined);
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const objectEnum = properties.object && (next(properties.object, 'object') as string | undefined);
      let names = Object.keys(properties);
      if (mode === 'request')
        names = required.size > 0 ? names.filter((name) => required.has(name)) : names.slice(0, 1);
      return Object.fromEntries(
        names.map((name) => [
          name,
          next(properties[name]!, name, typeof objectEnum === 'string' ? objectEnum : objectName),
        ]),
      );
    }
    case 'array': {
      const items = schema.items as Schema | undefined;
      const count = Math.max(1, (schema.minItems as number | undefined) ?? 1);
      return items ? Array.from({ length: count }, () => next(items, property, objectName)) : [];
    }
    case 'string':
      return sampleString(schema, property, objectName);
    case 'integer':
    case 'number':
      return sampleNumber(schema, property);
    case 'boolean':
      return property !== 'deleted';
    case 'null':
      return null;
    default:
      return {};
  }
}

/** The `Error` body of each status, as the server words it. */
const ERROR_EXAMPLES: Record<string, [type: string, code: string, message: string, param?: string]> = {
  '400': ['invalid_request_error', 'parameter_missing', 'name is required', 'name'],
  '401': ['authentication_error', 'invalid_api_key', 'Missing or unknown cc-api-key'],
  '403': ['permission_error', 'insufficient_role', 'This key may not manage webhooks'],
  '404': ['not_found', 'resource_missing', `No such customer: 'cus_${ID_BODY}'`, 'id'],
  '405': ['invalid_request_error', 'method_not_allowed', 'PUT is not allowed on /customers'],
  '409': ['conflict', 'invalid_state', 'The invoice is void'],
  '413': ['invalid_request_error', 'body_too_large', 'The request body is larger than 1 MB.', 'body'],
  '415': [
    'invalid_request_error',
    'unsupported_media_type',
    'The request body must be JSON, sent with Content-Type: application/json.',
    'Content-Type',
  ],
  '431': ['invalid_request_error', 'headers_too_large', 'The request line and headers are larger than 64 KB.'],
  '500': ['api_error', 'internal_error', 'An internal error occurred; it has been logged.'],
  '503': ['api_error', 'database_unavailable', 'The database does not answer; retry later.'],
};

function errorExample(status: string): unknown {
  const [type, code, message, param] = ERROR_EXAMPLES[status] ?? ERROR_EXAMPLES['500']!;
  return { error: { type, code, message, ...(param ? { param } : {}) } };
}

/** Adds an example to every JSON body of the document that has none (paths and webhooks). */
export function addExamples<D extends Document>(document: D): D {
  const operations = [
    ...Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        operation,
        requestMode: 'request' as const,
        key: `${method} ${path}`,
      })),
    ),
    // A delivery's body is an answer of the service: every field.
    ...Object.values(document.webhooks ?? {}).flatMap((item) =>
      Object.values(item).map((operation) => ({ operation, requestMode: 'response' as const, key: '' })),
    ),
  ];
  for (const { operation, requestMode, key } of operations) {
    for (const media of Object.values(operation.requestBody?.content ?? {})) {
      if (media.schema && media.example === undefined)
        media.example = REQUEST_EXAMPLES[key] ?? sampleOf(document, media.schema, requestMode);
    }
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      for (const [type, media] of Object.entries(response.content ?? {})) {
        if (type !== 'application/json' || !media.schema || media.example !== undefined) continue;
        media.example =
          media.schema.$ref === '#/components/schemas/Error'
            ? errorExample(status)
            : sampleOf(document, media.schema, 'response');
      }
    }
  }
  return document;
}
