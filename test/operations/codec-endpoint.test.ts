import crypto from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { newEncryptionKey } from '../../src/lib/secrets';
import { billingDataConverter, ENCRYPTED_ENCODING } from '../../src/temporal/payload-codec';
import { subscriptionWorkflowId } from '../../workflows/subscription-messages';
import { startTestWorker, type ApiClient, type TestApp, startWorkerApp } from '../support/harness';
import { addPaymentMethod, cardBody, CARDS } from '../support/payments';
import { createSubscription, expectStatus, recurringPrice, unix } from '../support/subscriptions';
import { waitUntil } from '../support/webhooks';

// Customer data in Temporal (docs/operations.md): a history's payloads are sealed under the service key,
// so its bytes hold neither the customer's name nor their email; the codec endpoint (src/temporal/codec-server.ts)
// opens them for an operator, with the operator token or the session it starts, and for the Web UI's origin only.

const TOKEN = `op_${crypto.randomBytes(16).toString('hex')}`;
const UI_ORIGIN = 'http://localhost:8233';
// A key of its own, as production has: the endpoint then wants the operator token.
process.env.SECRETS_ENCRYPTION_KEY = newEncryptionKey();
process.env.TEMPORAL_CODEC_TOKEN = TOKEN;
delete process.env.TEMPORAL_CODEC_ORIGINS;
delete process.env.TEMPORAL_UI_PORT;

let app: TestApp;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let api: ApiClient;

beforeAll(async () => {
  ({ app, worker, api } = await startWorkerApp('codec', {}));
});
afterAll(async () => {
  await worker?.stop();
  await app?.close();
});

type JsonPayload = { metadata: Record<string, string>; data: string };
const b64 = (text: string) => Buffer.from(text).toString('base64');
const unb64 = (text: string | undefined) => Buffer.from(text ?? '', 'base64').toString('utf8');

function codec(operation: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${app.baseUrl}/codec/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', origin: UI_ORIGIN, ...headers },
    body: JSON.stringify(body),
  });
}

function jsonPayload(payload: temporal.api.common.v1.IPayload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
    ),
    data: Buffer.from(payload.data ?? []).toString('base64'),
  };
}

it("a subscription's history holds no customer name or email; the codec endpoint opens it for an operator", async () => {
  const email = `ada.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const name = `Ada ${crypto.randomUUID().slice(0, 8)}`;
  const customer = expectStatus(await api.post('/customers', { name, email }), 201);
  await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
  const price = await recurringPrice(api, { unitAmount: 2500 });
  const subscription = await createSubscription(api, {
    customer: customer.id,
    items: [{ price, quantity: 1 }],
    trial_days: 0,
    start_date: unix(Date.now()),
  });
  const handle = app.temporal.workflow.getHandle(subscriptionWorkflowId(subscription.id));
  // An update runs its first workflow task now: a query answer, an update and an activity result join the history.
  expectStatus(
    await api.patch(`/subscriptions/${subscription.id}`, { collection_method: 'charge_automatically' }),
    200,
  );
  const history = await waitUntil(
    async () => {
      const read = await handle.fetchHistory();
      return read.events?.some((event) => event.activityTaskCompletedEventAttributes) ? read : undefined;
    },
    60_000,
    250,
  );

  // The raw bytes, as Temporal stores and serves them (the Web UI without the codec, `temporal workflow show`).
  const raw = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
  expect(raw.includes(email)).toBe(false);
  expect(raw.includes(name)).toBe(false);
  expect(raw.includes(customer.id)).toBe(true); // ids stay readable: search attributes
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  const input = started.input!.payloads![0]!;
  const summary = history.events![0]!.userMetadata!.summary!;
  for (const payload of [input, summary])
    expect(Buffer.from(payload.metadata!.encoding!).toString()).toBe(ENCRYPTED_ENCODING);

  // No credential: refused. The operator token: the input and the Web UI's summary in clear.
  const body = { payloads: [jsonPayload(input), jsonPayload(summary)] };
  const refused = await codec('decode', body);
  expect(refused.status).toBe(401);
  expect(await refused.text()).not.toContain(b64(email));
  expect((await codec('decode', body, { authorization: 'Bearer wrong' })).status).toBe(401);
  const answer = await codec('decode', body, { authorization: `Bearer ${TOKEN}` });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
  const decoded = ((await answer.json()) as { payloads: JsonPayload[] }).payloads;
  expect(unb64(decoded[0]!.metadata.encoding)).toBe('json/plain');
  expect(unb64(decoded[0]!.data)).toContain(subscription.id);
  // The summary and details name the customer by id only: the Web UI carries their decoded text in URLs.
  expect(unb64(decoded[1]!.data)).toContain(customer.id);
  expect(unb64(decoded[1]!.data)).not.toContain(name);
  const details = await codec(
    'decode',
    { payloads: [jsonPayload(history.events![0]!.userMetadata!.details!)] },
    { authorization: `Bearer ${TOKEN}` },
  );
  const detailsText = unb64(((await details.json()) as { payloads: JsonPayload[] }).payloads[0]!.data);
  expect(detailsText).toContain(`**Customer**: ${customer.id}`);
  expect(detailsText).not.toContain(email);

  // The replay of this (encrypted) history with the worker's data converter.
  await expect(
    Worker.runReplayHistory(
      { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, dataConverter: billingDataConverter() },
      history,
    ),
  ).resolves.toBeUndefined();
}, 120_000);

it('the Web UI: a preflight from its origin, and a session cookie started with the token', async () => {
  const preflight = await fetch(`${app.baseUrl}/codec/decode`, {
    method: 'OPTIONS',
    headers: {
      origin: UI_ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-namespace',
    },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/);
  const elsewhere = await fetch(`${app.baseUrl}/codec/decode`, {
    method: 'OPTIONS',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
  });
  expect(elsewhere.status).toBe(403);
  expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();

  // encode then decode round trip, through a session cookie.
  const wrong = await fetch(`${app.baseUrl}/codec/session`, {
    method: 'POST',
    body: new URLSearchParams({ token: 'nope' }),
  });
  expect(wrong.status).toBe(401);
  expect(wrong.headers.get('set-cookie')).toBeNull();
  const login = await fetch(`${app.baseUrl}/codec/session`, {
    method: 'POST',
    body: new URLSearchParams({ token: TOKEN }),
  });
  expect(login.status).toBe(200);
  const setCookie = login.headers.get('set-cookie')!;
  expect(setCookie).toMatch(/^billing_codec_session=[^;]+; Path=\/codec; Max-Age=43200; HttpOnly; SameSite=Strict$/);
  const session = { cookie: setCookie.split(';')[0]! };
  const plain = { metadata: { encoding: b64('json/plain') }, data: b64('"grace@example.com"') };
  const encoded = await codec('encode', { payloads: [plain] }, session);
  expect(encoded.status).toBe(200);
  const sealed = ((await encoded.json()) as { payloads: JsonPayload[] }).payloads[0]!;
  expect(unb64(sealed.metadata.encoding)).toBe(ENCRYPTED_ENCODING);
  expect(unb64(sealed.data)).not.toContain('grace@example.com');
  const opened = await codec('decode', { payloads: [sealed] }, session);
  expect(((await opened.json()) as { payloads: JsonPayload[] }).payloads).toEqual([plain]);
  // A forged or expired cookie is not a session.
  expect((await codec('decode', { payloads: [sealed] }, { cookie: 'billing_codec_session=x.1.y' })).status).toBe(401);
  // Not the payloads protocol: 400.
  expect((await codec('decode', { payloads: 'no' }, session)).status).toBe(400);
});
