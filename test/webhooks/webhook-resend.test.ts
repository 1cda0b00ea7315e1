import {
  apiClient,
  createTestAccount,
  expectStatus,
  quietRuntime,
  type ApiClient,
  type TestApp,
} from '../support/harness';
import type { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookStack, waitUntil, type WebhookStack } from '../support/webhooks';

/**
 * Resending a logged delivery (POST /webhook/logs/{id}/resend) end to end on the suite's Temporal dev
 * server: a new delivery of the same envelope through its own deliverWebhook workflow, once per
 * Idempotency-Key and once for two requests at the same moment; refused while the event is still
 * being delivered there, to a disabled destination, to a standard key, and for another account's id.
 */
let stack: WebhookStack;
let app: TestApp;
let receiver: WebhookReceiver;

beforeAll(async () => {
  quietRuntime();
  stack = await startWebhookStack(`webhook-resend-${crypto.randomUUID()}`);
  ({ app, receiver } = stack);
});
afterAll(() => stack?.close());

/** A developer account with a destination at `path` of the receiver, and a customer whose creation is delivered there. */
async function deliveredOnce(path: string) {
  const account = await createTestAccount(app.prisma, { name: 'Resender' });
  stack.accounts.push(account.accountId);
  const api = apiClient(app.baseUrl, account.apiKey);
  const destination = expectStatus(await api.post('/webhook/destination', { url: `${receiver.url}${path}` }), 201);
  const customer = expectStatus(await api.post('/customers', { name: 'Ada' }), 201);
  const ended = async () => {
    const logs = expectStatus(await api.get(`/webhook/logs?destination=${destination.id}`), 200).data as any[];
    return logs.length === 1 && ['success', 'failure'].includes(logs[0].status) ? logs[0] : undefined;
  };
  const delivery = await waitUntil(ended);
  return { api, accountId: account.accountId, destination, customer, delivery };
}

function logsOfEvent(api: ApiClient, eventId: string): Promise<any[]> {
  return api.get(`/webhook/logs?event=${eventId}`).then((answer) => expectStatus(answer, 200).data as any[]);
}

it('delivers the same envelope again through a workflow of its own, once per Idempotency-Key', async () => {
  let refused = true;
  receiver.reply((request) => {
    if (!request.path.endsWith('/refuse-once')) return 200;
    const status = refused ? 410 : 200;
    refused = false;
    return status;
  });
  const { api, delivery } = await deliveredOnce('/refuse-once');
  expect(delivery).toMatchObject({ status: 'failure', status_code: 410, resend: 0 });
  const before = receiver.received.filter((request) => request.path.endsWith('/refuse-once')).length;

  const key = { 'idempotency-key': `resend-${delivery.id}` };
  const [first, second] = [
    await api.post(`/webhook/logs/${delivery.id}/resend`, undefined, key),
    await api.post(`/webhook/logs/${delivery.id}/resend`, undefined, key),
  ];
  const resent = expectStatus(first, 202);
  expect(expectStatus(second, 202)).toEqual(resent);
  expect(resent).toMatchObject({
    id: expect.stringMatching(/^whd_/),
    event_id: delivery.event_id,
    destination: delivery.destination,
    resend: 1,
    workflow_id: `webhook:${delivery.event_id}:${delivery.destination}:resend-1`,
    payload: delivery.payload,
    status: 'pending',
    attempts: [],
  });

  const logs = await waitUntil(async () => {
    const listed = await logsOfEvent(api, delivery.event_id);
    return listed.length === 2 && listed.every((entry) => entry.status !== 'pending') ? listed : undefined;
  });
  expect(logs.map((entry) => [entry.resend, entry.status, entry.status_code])).toEqual([
    [1, 'success', 200],
    [0, 'failure', 410],
  ]);
  const sent = receiver.received.filter((request) => request.path.endsWith('/refuse-once'));
  expect(sent.length).toBe(before + 1);
  expect(sent.at(-1)!.json).toEqual(delivery.payload);
  const workflow = await app.temporal.workflow.getHandle(resent.workflow_id).describe();
  expect(workflow.type).toBe('deliverWebhook');
}, 60_000);

it('two resends at the same moment deliver once: the second finds the first running (409)', async () => {
  receiver.reply(200);
  const { api, delivery } = await deliveredOnce('/twice');
  const answers = await Promise.all([
    api.post(`/webhook/logs/${delivery.id}/resend`),
    api.post(`/webhook/logs/${delivery.id}/resend`),
  ]);
  expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
  const refused = answers.find((answer) => answer.status === 409)!;
  expect(refused.body.error).toMatchObject({ code: 'delivery_in_progress' });
  await waitUntil(async () => (await logsOfEvent(api, delivery.event_id)).every((entry) => entry.status === 'success'));
  expect(await logsOfEvent(api, delivery.event_id)).toHaveLength(2);
}, 60_000);

it('refuses while the event is still being retried there, and to a disabled destination (409)', async () => {
  receiver.reply((request) => (request.path.endsWith('/busy') ? 503 : 200));
  const account = await createTestAccount(app.prisma, { name: 'Busy' });
  stack.accounts.push(account.accountId);
  const api = apiClient(app.baseUrl, account.apiKey);
  const destination = expectStatus(await api.post('/webhook/destination', { url: `${receiver.url}/busy` }), 201);
  expectStatus(await api.post('/customers', { name: 'Ada' }), 201);
  const retrying = await waitUntil(async () => {
    const logs = expectStatus(await api.get('/webhook/logs?status=retry'), 200).data as any[];
    return logs[0];
  });
  const busy = expectStatus(await api.post(`/webhook/logs/${retrying.id}/resend`), 409);
  expect(busy.error).toMatchObject({ code: 'delivery_in_progress' });

  expectStatus(await api.patch(`/webhook/destination/${destination.id}/disable`), 200);
  const ended = await waitUntil(async () => {
    const [entry] = await logsOfEvent(api, retrying.event_id);
    return entry?.status === 'failure' ? entry : undefined;
  }, 60_000);
  const disabled = expectStatus(await api.post(`/webhook/logs/${ended.id}/resend`), 409);
  expect(disabled.error).toMatchObject({ code: 'destination_disabled' });
}, 90_000);

it('is for developers and superadmins of the account: 403 for a standard key, 404 for another account or an unknown id', async () => {
  receiver.reply(200);
  const { accountId, delivery } = await deliveredOnce('/roles');
  const standard = await createTestAccount(app.prisma, { name: 'Standard', role: 'standard' });
  await app.prisma.apiKey.updateMany({ where: { accountId: standard.accountId }, data: { accountId } });
  const asStandard = apiClient(app.baseUrl, standard.apiKey);
  expectStatus(await asStandard.post(`/webhook/logs/${delivery.id}/resend`), 403);
  const other = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { name: 'Other' })).apiKey);
  expectStatus(await other.post(`/webhook/logs/${delivery.id}/resend`), 404);
  expectStatus(await other.post('/webhook/logs/whd_unknown/resend'), 404);
}, 60_000);
