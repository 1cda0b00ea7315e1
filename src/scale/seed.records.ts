import type { Client } from 'pg';
import { addToHoursSql } from '../usage';

/**
 * The statements of `npm run seed:scale` (src/cli/seed-scale.ts, docs/performance.md "Data at scale"):
 * rows made by PostgreSQL itself with generate_series, one statement per chunk, so millions of rows take
 * minutes rather than hours of round trips. Every value is a function of the row's number and the seed
 * (hashtext of `seed:kind:n`), so a run with the same sizes, seed and `until` makes the same data (ids
 * aside, which carry the account's id so that two runs never collide). The helpers are functions in the
 * session's temporary schema (pg_temp): nothing stays in the database but the rows.
 */

const FIRST_NAMES = [
  'Ada',
  'Alan',
  'Grace',
  'Linus',
  'Margaret',
  'Dennis',
  'Barbara',
  'Ken',
  'Frances',
  'John',
  'Radia',
  'Tim',
  'Katherine',
  'Edsger',
  'Hedy',
  'Donald',
  'Shafi',
  'Leslie',
  'Sophie',
  'Niklaus',
  'Joan',
  'Bjarne',
  'Karen',
  'Guido',
  'Annie',
  'James',
  'Mary',
  'Robert',
  'Patricia',
  'Michael',
  'Jennifer',
  'William',
  'Linda',
  'David',
  'Elizabeth',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Charles',
  'Nancy',
  'Daniel',
  'Lisa',
  'Matthew',
  'Betty',
  'Anthony',
  'Sandra',
  'Mark',
  'Ashley',
  'Paul',
  'Kimberly',
  'Steven',
  'Emily',
  'Andrew',
  'Donna',
  'Joshua',
  'Michelle',
  'Kevin',
  'Carol',
  'Brian',
  'Amanda',
  'George',
  'Melissa',
  'Edward',
  'Deborah',
  'Ronald',
  'Stephanie',
  'Timothy',
  'Rebecca',
  'Jason',
  'Laura',
  'Jeffrey',
  'Helen',
  'Ryan',
  'Sharon',
  'Jacob',
  'Cynthia',
  'Gary',
  'Kathleen',
  'Nicholas',
  'Amy',
  'Eric',
  'Shirley',
  'Jonathan',
  'Angela',
  'Stephen',
  'Anna',
  'Larry',
  'Ruth',
  'Justin',
  'Brenda',
  'Scott',
  'Pamela',
  'Brandon',
  'Nicole',
  'Frank',
  'Katarzyna',
  'Benjamin',
  'Samantha',
  'Gregory',
  'Christine',
  'Raymond',
  'Emma',
  'Samuel',
  'Catherine',
  'Patrick',
  'Debra',
  'Alexander',
  'Virginia',
  'Jack',
  'Rachel',
  'Dennis',
  'Carolyn',
  'Jerry',
  'Janet',
  'Tyler',
  'Maria',
  'Aaron',
  'Heather',
  'Haruki',
  'Yuki',
  'Mei',
  'Wei',
  'Aarav',
  'Priya',
  'Omar',
  'Fatima',
  'Lucas',
  'Sofia',
  'Mateo',
  'Valentina',
  'Noah',
  'Olivia',
  'Liam',
  'Chloe',
  'Ingrid',
  'Sven',
  'Amara',
  'Kwame',
  'Zanele',
  'Tariq',
  'Leila',
  'Pierre',
];

const LAST_NAMES = [
  'Lovelace',
  'Turing',
  'Hopper',
  'Torvalds',
  'Hamilton',
  'Ritchie',
  'Liskov',
  'Thompson',
  'Allen',
  'Backus',
  'Perlman',
  'Berners-Lee',
  'Johnson',
  'Dijkstra',
  'Lamarr',
  'Knuth',
  'Goldwasser',
  'Lamport',
  'Wilson',
  'Wirth',
  'Clarke',
  'Stroustrup',
  'Sparck Jones',
  'van Rossum',
  'Easley',
  'Gosling',
  'Smith',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Gonzalez',
  'Anderson',
  'Taylor',
  'Thomas',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Perez',
  'White',
  'Harris',
  'Sanchez',
  'Clark',
  'Ramirez',
  'Lewis',
  'Robinson',
  'Walker',
  'Young',
  'King',
  'Wright',
  'Scott',
  'Torres',
  'Nguyen',
  'Hill',
  'Flores',
  'Green',
  'Adams',
  'Nelson',
  'Baker',
  'Hall',
  'Rivera',
  'Campbell',
  'Mitchell',
  'Carter',
  'Roberts',
  'Kowalski',
  'Nowak',
  'Müller',
  'Schmidt',
  'Schneider',
  'Fischer',
  'Weber',
  'Dubois',
  'Lefebvre',
  'Moreau',
  'Rossi',
  'Russo',
  'Ferrari',
  'Esposito',
  'Bianchi',
  'Tanaka',
  'Suzuki',
  'Takahashi',
  'Watanabe',
  'Kim',
  'Park',
  'Choi',
  'Wang',
  'Li',
  'Zhang',
  'Liu',
  'Chen',
  'Patel',
  'Sharma',
  'Singh',
  'Kumar',
  'Haddad',
  'Nasser',
  'Okafor',
  'Mensah',
  'Dlamini',
  'Silva',
  'Santos',
  'Oliveira',
  'Pereira',
  'Costa',
  'Andersson',
  'Johansson',
  'Nielsen',
  'Hansen',
  "O'Brien",
  'Murphy',
  'Kelly',
  'Walsh',
  'Byrne',
  'Novak',
  'Horvat',
  'Kovacs',
  'Popescu',
  'Ivanova',
  'Petrov',
];

const DOMAINS = [
  'example.com',
  'mail.example',
  'acme.test',
  'inbox.example',
  'corp.example',
  'shop.example',
  'studio.example',
  'gmail.example',
  'outlook.example',
  'proton.example',
  'fastmail.example',
  'school.example',
];

const EVENT_TYPES = [
  'invoice.created',
  'invoice.finalized',
  'invoice.paid',
  'invoice.payment_failed',
  'customer.created',
  'customer.updated',
  'customer.subscription.created',
  'customer.subscription.updated',
  'payment_method.attached',
  'invoice.voided',
];

const literal = (values: string[]) => `ARRAY[${values.map((value) => `'${value.replace(/'/g, "''")}'`).join(',')}]`;

/**
 * The session's helpers. $seed, $account, $until and the sizes are bound once as settings of the session
 * (`scale.*`), so every chunk statement stays a fixed text with the chunk's bounds as its parameters.
 */
const HELPERS = `
CREATE OR REPLACE FUNCTION pg_temp.h(kind text, n bigint) RETURNS bigint LANGUAGE sql STABLE AS
  $$ SELECT (hashtext(current_setting('scale.seed') || ':' || kind || ':' || n)::bigint + 2147483648) $$;
CREATE OR REPLACE FUNCTION pg_temp.pick(items text[], kind text, n bigint) RETURNS text LANGUAGE sql AS
  $$ SELECT items[1 + pg_temp.h(kind, n) % array_length(items, 1)] $$;
CREATE OR REPLACE FUNCTION pg_temp.rid(prefix text, kind text, n bigint) RETURNS text LANGUAGE sql AS
  $$ SELECT prefix || '_' || substr(md5(current_setting('scale.account') || ':' || kind || ':' || n), 1, 24) $$;
-- Row n of count spread evenly over the span (in seconds) before until, with up to an hour of jitter.
CREATE OR REPLACE FUNCTION pg_temp.at(kind text, n bigint, count bigint) RETURNS timestamptz LANGUAGE sql AS
  $$ SELECT current_setting('scale.until')::timestamptz
       - make_interval(secs => current_setting('scale.span')::bigint * (count - n)::float8 / count)
       - make_interval(secs => pg_temp.h(kind || ':t', n) % 3600) $$;
CREATE OR REPLACE FUNCTION pg_temp.first_name(n bigint) RETURNS text LANGUAGE sql AS
  $$ SELECT pg_temp.pick(${literal(FIRST_NAMES)}, 'first', n) $$;
CREATE OR REPLACE FUNCTION pg_temp.last_name(n bigint) RETURNS text LANGUAGE sql AS
  $$ SELECT pg_temp.pick(${literal(LAST_NAMES)}, 'last', n) $$;
CREATE OR REPLACE FUNCTION pg_temp.customer_name(n bigint) RETURNS text LANGUAGE sql AS
  $$ SELECT pg_temp.first_name(n) || ' ' || pg_temp.last_name(n) $$;
-- Unique within the account: the customer's number is part of it. One customer in 25 has none.
CREATE OR REPLACE FUNCTION pg_temp.customer_email(n bigint) RETURNS text LANGUAGE sql AS
  $$ SELECT CASE WHEN pg_temp.h('noemail', n) % 25 = 0 THEN NULL ELSE
       lower(regexp_replace(pg_temp.first_name(n) || '.' || pg_temp.last_name(n), '[^A-Za-z.]', '', 'g'))
       || n || '@' || pg_temp.pick(${literal(DOMAINS)}, 'domain', n) END $$;
CREATE OR REPLACE FUNCTION pg_temp.customer_currency(n bigint) RETURNS text LANGUAGE sql AS
  $$ SELECT CASE WHEN pg_temp.h('cur', n) % 20 < 12 THEN 'USD' WHEN pg_temp.h('cur', n) % 20 < 17 THEN 'EUR' ELSE 'GBP' END $$;
-- An invoice's customer: one who had signed up by the invoice's time (customers and invoices share the span).
CREATE OR REPLACE FUNCTION pg_temp.invoice_customer(n bigint) RETURNS bigint LANGUAGE sql AS
  $$ SELECT 1 + pg_temp.h('invcus', n) % greatest(1, (current_setting('scale.customers')::bigint * n
       / current_setting('scale.invoices')::bigint)) $$;
-- Older invoices are settled; the newest weeks hold the drafts and open ones.
CREATE OR REPLACE FUNCTION pg_temp.invoice_status(n bigint) RETURNS text LANGUAGE sql AS
  $$ SELECT CASE
       WHEN n > current_setting('scale.invoices')::bigint * 0.98 AND pg_temp.h('st', n) % 10 < 3 THEN 'draft'
       WHEN n > current_setting('scale.invoices')::bigint * 0.95 AND pg_temp.h('st', n) % 10 < 4 THEN 'open'
       WHEN pg_temp.h('st', n) % 100 < 6 THEN 'void'
       WHEN pg_temp.h('st', n) % 100 < 9 THEN 'open'
       ELSE 'paid' END $$;
CREATE OR REPLACE FUNCTION pg_temp.invoice_amount(n bigint) RETURNS bigint LANGUAGE sql AS
  $$ SELECT (ARRAY[900, 1900, 2500, 4900, 9900, 14900, 19900, 49900])[1 + pg_temp.h('amt', n) % 8]
       * (1 + pg_temp.h('qty', n) % 3) $$;
`;

const CUSTOMERS = `
INSERT INTO customers (id, account_id, name, email, description, phone, currency, address, created_at, updated_at, deleted_at)
SELECT pg_temp.rid('cus', 'cus', n), current_setting('scale.account'), pg_temp.customer_name(n), pg_temp.customer_email(n),
  CASE WHEN pg_temp.h('desc', n) % 5 = 0 THEN 'Customer since ' || to_char(c.at, 'YYYY') END,
  CASE WHEN pg_temp.h('phone', n) % 2 = 0 THEN '+1 555 ' || lpad((pg_temp.h('ph', n) % 10000000)::text, 7, '0') END,
  pg_temp.customer_currency(n),
  CASE WHEN pg_temp.h('addr', n) % 3 = 0 THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object(
    'line1', (1 + pg_temp.h('street', n) % 400) || ' ' || pg_temp.last_name(n + 7) || ' Street',
    'city', pg_temp.pick(ARRAY['Berlin','Paris','Austin','Lisbon','Osaka','Toronto','Nairobi','Lima'], 'city', n),
    'country', pg_temp.pick(ARRAY['DE','FR','US','PT','JP','CA','KE','PE'], 'city', n))) END,
  c.at, c.at,
  CASE WHEN pg_temp.h('del', n) % 50 = 0 THEN c.at + interval '30 days' END
FROM generate_series($1::bigint, $2::bigint) n, LATERAL (SELECT pg_temp.at('cus', n, current_setting('scale.customers')::bigint) AS at) c`;

const INVOICES = `
WITH rows AS (
  SELECT n, pg_temp.invoice_customer(n) AS cn, pg_temp.invoice_status(n) AS status,
    pg_temp.at('inv', n, current_setting('scale.invoices')::bigint) AS at, pg_temp.invoice_amount(n) AS amount,
    pg_temp.h('sub', n) % 100 < 65 AS subscribed, pg_temp.h('coll', n) % 100 < 85 AS automatic
  FROM generate_series($1::bigint, $2::bigint) n
), made AS (
  INSERT INTO invoices (id, account_id, customer_id, subscription_id, number, status, collection_method, billing_reason,
    currency, due_date, period_start, period_end, subtotal, subtotal_excluding_tax, tax, total, total_excluding_tax,
    total_taxes, amount_due, amount_paid, attempt_count, account_name, customer_name, customer_email, finalized_at,
    paid_at, voided_at, created_at, updated_at)
  SELECT md5(current_setting('scale.account') || ':inv:' || n)::uuid::text, current_setting('scale.account'),
    pg_temp.rid('cus', 'cus', cn), CASE WHEN subscribed THEN pg_temp.rid('sub', 'sub', cn) END,
    CASE WHEN status <> 'draft' THEN 'INV-' || lpad(n::text, greatest(6, length(n::text)), '0') END, status,
    CASE WHEN automatic THEN 'charge_automatically' ELSE 'send_invoice' END,
    CASE WHEN subscribed THEN 'subscription_cycle' ELSE 'manual' END, pg_temp.customer_currency(cn),
    CASE WHEN NOT automatic THEN at + interval '30 days' END, at, at + interval '1 month',
    amount, amount, 0, amount, amount, '[]', amount, CASE WHEN status = 'paid' THEN amount ELSE 0 END,
    CASE WHEN status = 'paid' THEN 1 ELSE 0 END, current_setting('scale.account_name'),
    pg_temp.customer_name(cn), pg_temp.customer_email(cn),
    CASE WHEN status <> 'draft' THEN at + interval '1 hour' END,
    CASE WHEN status = 'paid' THEN at + interval '1 hour' END, CASE WHEN status = 'void' THEN at + interval '2 days' END,
    at, at
  FROM rows RETURNING id, status, total, currency, customer_id, created_at
), made_lines AS (
  INSERT INTO invoice_lines (id, account_id, invoice_id, position, description, quantity, unit_amount, amount,
    amount_excluding_tax, tax_amounts, period_start, period_end)
  SELECT 'il_' || substr(md5(id), 1, 24), current_setting('scale.account'), id, 0,
    pg_temp.pick(ARRAY['Starter plan','Team plan','Business plan','Seats','Support hours','Setup fee'], 'line', hashtext(id)),
    1, total, total, total, '[]', created_at, created_at + interval '1 month'
  FROM made RETURNING 1
)
INSERT INTO transactions (id, account_id, type, status, amount, currency, customer_id, invoice_id, attempt, gateway_reference,
  description, created_at, updated_at)
SELECT 'txn_' || substr(md5(id || ':pay'), 1, 24), current_setting('scale.account'), 'payment', 'succeeded', total, currency,
  customer_id, id, 1, 'ch_' || substr(md5(id || ':ch'), 1, 24), 'Invoice payment', created_at + interval '1 hour',
  created_at + interval '1 hour'
FROM made WHERE status = 'paid'`;

const EVENTS = `
INSERT INTO events (id, account_id, type, data, created_at, inserted_at, dispatched_at)
SELECT pg_temp.rid('evt', 'evt', n), current_setting('scale.account'), t.type,
  jsonb_build_object('object', jsonb_build_object('id', pg_temp.rid('cus', 'cus', 1 + pg_temp.h('evcus', n) % current_setting('scale.customers_or_1')::bigint),
    'object', split_part(t.type, '.', 1), 'livemode', false)),
  t.at, t.at, t.at + interval '1 second'
FROM generate_series($1::bigint, $2::bigint) n,
  LATERAL (SELECT pg_temp.pick(${literal(EVENT_TYPES)}, 'evtype', n) AS type,
    pg_temp.at('evt', n, current_setting('scale.events')::bigint) AS at) t`;

/**
 * Usage event n of the seeded meter (`api_call`, summed on `tokens`): one in ten is the first customer's (an
 * account's heaviest user), the rest spread over every seeded customer; spread evenly over the 90 days before
 * `until`, as a month's usage of a busy account is what a period's total reads. A deleted customer's share goes to
 * the next customer. Each chunk adds its events to their hours as ingestion does.
 */
const USAGE_EVENTS = `
WITH written AS (
  INSERT INTO usage_events (account_id, id, event_name, customer_id, timestamp, properties, received_at)
  SELECT current_setting('scale.account'), 'ue-' || n, 'api_call', pg_temp.rid('cus', 'cus', c.customer), c.at,
    jsonb_build_object('tokens', 1 + pg_temp.h('uetok', n) % 100), c.at
  FROM generate_series($1::bigint, $2::bigint) n,
    LATERAL (SELECT CASE WHEN n % 10 = 0 THEN 1 ELSE 1 + pg_temp.h('uecus', n) % current_setting('scale.customers_or_1')::bigint END AS drawn) d,
    -- A customer the seed deleted (CUSTOMERS: one in 50) passes its events to the next one.
    LATERAL (SELECT CASE WHEN pg_temp.h('del', d.drawn) % 50 = 0 THEN d.drawn % current_setting('scale.customers_or_1')::bigint + 1
      ELSE d.drawn END AS customer,
      current_setting('scale.until')::timestamptz - make_interval(secs => 7776000 * (current_setting('scale.usage_events')::bigint - n)::float8
        / current_setting('scale.usage_events')::bigint) AS at) c
  RETURNING customer_id, event_name, timestamp, received_at, id, (properties->>'tokens')::numeric AS value
)
${addToHoursSql("current_setting('scale.account')", 'written')}`;

/** The meter the seeded usage events count (USAGE_METER_EVENT), made before them. */
const USAGE_METER = `
INSERT INTO meters (id, account_id, name, event_name, aggregation, value_property, created_at)
VALUES (pg_temp.rid('mtr', 'mtr', 1), current_setting('scale.account'), 'API calls', 'api_call', 'sum', 'tokens',
  current_setting('scale.until')::timestamptz - interval '1 year')
ON CONFLICT (account_id, event_name) DO NOTHING`;

/** Delivery n: event ((n-1) mod events) + 1 to destination (n-1) / events + 1; the newest ones still pending or retrying. */
const DELIVERIES = `
WITH rows AS (
  SELECT n, 1 + (n - 1) % current_setting('scale.events')::bigint AS en, 1 + (n - 1) / current_setting('scale.events')::bigint AS dn,
    CASE WHEN n > current_setting('scale.deliveries')::bigint * 0.999 AND pg_temp.h('dst', n) % 2 = 0 THEN 'pending'
         WHEN pg_temp.h('dst', n) % 100 < 2 THEN 'retry' WHEN pg_temp.h('dst', n) % 100 < 5 THEN 'failure' ELSE 'success' END AS status
  FROM generate_series($1::bigint, $2::bigint) n
), deliveries AS (
  INSERT INTO webhook_deliveries (id, account_id, event_id, event_type, destination_id, payload, status, attempt_count,
    last_status_code, last_error, next_attempt_at, completed_at, created_at, updated_at)
  SELECT pg_temp.rid('whd', 'whd', n), current_setting('scale.account'), e.id, e.type, pg_temp.rid('we', 'we', dn),
    jsonb_build_object('id', e.id, 'event', e.type, 'createdAt', e.created_at, 'data', e.data), status,
    CASE status WHEN 'pending' THEN 0 WHEN 'success' THEN 1 ELSE 3 END,
    CASE status WHEN 'success' THEN 200 WHEN 'pending' THEN NULL ELSE 500 END,
    CASE WHEN status IN ('retry', 'failure') THEN 'HTTP 500' END,
    CASE WHEN status = 'retry' THEN e.created_at + interval '1 hour' END,
    CASE WHEN status IN ('success', 'failure') THEN e.created_at + interval '2 seconds' END,
    e.created_at + interval '1 second', e.created_at + interval '2 seconds'
  FROM rows JOIN events e ON e.id = pg_temp.rid('evt', 'evt', en)
  RETURNING id, status, attempt_count, last_status_code, created_at, destination_id
)
INSERT INTO webhook_attempts (id, delivery_id, attempt_number, scheduled_at, sent_at, url, outcome, status_code, error, duration_ms)
SELECT 'wha_' || substr(md5(id), 1, 24), id, 1, created_at, created_at, 'https://hooks.example/' || destination_id,
  CASE WHEN status = 'success' THEN 'success' ELSE 'retryable' END, last_status_code,
  CASE WHEN status <> 'success' THEN 'HTTP 500' END, 80 + hashtext(id) % 40
FROM deliveries WHERE attempt_count > 0`;

const DESTINATIONS = `
INSERT INTO webhook_destinations (id, account_id, url, secret, active, created_at, updated_at)
SELECT pg_temp.rid('we', 'we', n), current_setting('scale.account'), 'https://hooks.example/' || pg_temp.rid('we', 'we', n),
  'whsec_' || md5(current_setting('scale.account') || n), true, current_setting('scale.until')::timestamptz - interval '3 years',
  current_setting('scale.until')::timestamptz - interval '3 years'
FROM generate_series(1, $1::bigint) n ON CONFLICT (id) DO NOTHING`;

/** Invoice numbers continue after the seeded ones (INV-<n>), so the account's next finalization does not collide. */
const NUMBER_COUNTER = `
INSERT INTO invoice_number_counters (account_id, last_number) VALUES (current_setting('scale.account'), $1)
ON CONFLICT (account_id) DO UPDATE SET last_number = greatest(invoice_number_counters.last_number, $1)`;

export interface SeedSizes {
  customers: number;
  invoices: number;
  events: number;
  deliveries: number;
  /** Usage events of one meter (USAGE_EVENTS), over the seeded customers. */
  usageEvents: number;
}

export interface SeedSession {
  accountId: string;
  accountName: string;
  seed: string;
  until: Date;
  /** Seconds before `until` that the rows' creation times spread over. */
  spanSeconds: number;
  sizes: SeedSizes;
}

/** Binds the session's settings and creates its helper functions (pg_temp: gone with the connection). */
export async function openSeedSession(client: Client, session: SeedSession): Promise<void> {
  const settings: Record<string, string> = {
    'scale.seed': session.seed,
    'scale.account': session.accountId,
    'scale.account_name': session.accountName,
    'scale.until': session.until.toISOString(),
    'scale.span': String(session.spanSeconds),
    'scale.customers': String(session.sizes.customers),
    'scale.customers_or_1': String(Math.max(1, session.sizes.customers)),
    'scale.invoices': String(Math.max(1, session.sizes.invoices)),
    'scale.events': String(Math.max(1, session.sizes.events)),
    'scale.deliveries': String(Math.max(1, session.sizes.deliveries)),
    'scale.usage_events': String(Math.max(1, session.sizes.usageEvents)),
  };
  for (const [name, value] of Object.entries(settings)) {
    await client.query('SELECT set_config($1, $2, false)', [name, value]);
  }
  await client.query(HELPERS);
}

export type SeedTable = keyof SeedSizes;

const CHUNK_STATEMENTS: Record<SeedTable, string> = {
  customers: CUSTOMERS,
  invoices: INVOICES,
  events: EVENTS,
  deliveries: DELIVERIES,
  usageEvents: USAGE_EVENTS,
};

/** Rows first..last (1-based, inclusive) of one table, in one statement. */
export async function seedChunk(client: Client, table: SeedTable, first: number, last: number): Promise<void> {
  await client.query(CHUNK_STATEMENTS[table], [first, last]);
}

/** The destinations the deliveries go to (one per `events` deliveries), the invoice number counter and the usage events' meter. */
export async function seedSupportingRows(client: Client, sizes: SeedSizes): Promise<void> {
  const destinations = sizes.events > 0 ? Math.ceil(sizes.deliveries / sizes.events) : 0;
  if (destinations > 0) await client.query(DESTINATIONS, [destinations]);
  if (sizes.invoices > 0) await client.query(NUMBER_COUNTER, [sizes.invoices]);
  if (sizes.usageEvents > 0) await client.query(USAGE_METER);
}

/** The tables seeded and those the list counters of docs/decisions.md read, with fresh planner statistics. */
export async function analyzeSeededTables(client: Client): Promise<void> {
  for (const table of [
    'customers',
    'invoices',
    'invoice_lines',
    'transactions',
    'events',
    'webhook_deliveries',
    'webhook_attempts',
    'webhook_destinations',
    'usage_events',
    'usage_hours',
  ]) {
    await client.query(`ANALYZE ${table}`);
  }
}
