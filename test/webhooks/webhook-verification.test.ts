import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { projectRoot } from '../../src/config';
import { apiClient, createTestAccount, type TestApp } from '../support/harness';
import type { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookStack, type WebhookStack } from '../support/webhooks';

/**
 * The webhook verification guide (docs/api.md, "Verifying cc-signature"): its Node
 * and Python functions, taken from the page as written, run on a real delivery of this service, and
 * the delivery matches its OpenAPI `webhooks` entry.
 */
const TASK_QUEUE = 'webhook-verification-test';
let stack: WebhookStack;
let app: TestApp;
let receiver: WebhookReceiver;
let accounts: string[];

beforeAll(async () => {
  stack = await startWebhookStack(TASK_QUEUE);
  ({ app, receiver: receiver, accounts: accounts } = stack);
});

afterAll(() => stack.close());

/** A fenced block of docs/api.md, by language and a line it contains, without the list indent. */
function guideBlock(language: string, containing: string): string {
  const page = fs.readFileSync(path.join(projectRoot, 'docs', 'api.md'), 'utf8');
  const blocks = [...page.matchAll(new RegExp('^( *)```' + language + '\\n([\\s\\S]*?)^\\1```', 'gm'))];
  const block = blocks.find((match) => match[2]!.includes(containing));
  if (!block) throw new Error(`no ${language} block with ${containing} in docs/api.md`);
  return block[2]!.replace(new RegExp(`^${block[1]}`, 'gm'), '');
}

type Verify = (
  rawBody: string | Buffer,
  header: string,
  secret: string,
  toleranceSeconds?: number,
  now?: number,
) => boolean;

async function pythonVerify(
  cases: { body: string; header: string; secret: string; now: number }[],
): Promise<boolean[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verify-'));
  const script = path.join(dir, 'verify.py');
  fs.writeFileSync(
    script,
    `${guideBlock('python', 'def verify_webhook')}\nimport json, sys\ncases = json.load(open(sys.argv[1]))\n` +
      'print(json.dumps([verify_webhook(c["body"].encode(), c["header"], c["secret"], now=c["now"]) for c in cases]))\n',
  );
  fs.writeFileSync(path.join(dir, 'cases.json'), JSON.stringify(cases));
  const { stdout } = await promisify(execFile)('python3', [script, path.join(dir, 'cases.json')]);
  fs.rmSync(dir, { recursive: true, force: true });
  return JSON.parse(stdout) as boolean[];
}

it('the guide verifies a real delivery in Node and Python, and refuses a changed body, a wrong secret and an old timestamp', async () => {
  const account = await createTestAccount(app.prisma);
  accounts.push(account.accountId);
  const api = apiClient(app.baseUrl, account.apiKey);
  const destination = (await api.post('/webhook/destination', { url: receiver.url })).body as { secret: string };
  const customer = (await api.post('/customers', { name: 'Verified Receiver' })).body as { id: string };
  const [delivery] = await receiver.waitFor(1, { filter: (request) => request.json?.data?.id === customer.id });
  const header = String(delivery!.headers['cc-signature']);
  const t = Number(/t=(\d+)/.exec(header)![1]);
  const { secret } = destination;

  const verifyWebhook = new Function('require', `${guideBlock('js', 'function verifyWebhook')}\nreturn verifyWebhook;`)(
    require,
  ) as Verify;
  expect(verifyWebhook(delivery!.body, header, secret)).toBe(true);
  expect(verifyWebhook(Buffer.from(delivery!.body), header, secret)).toBe(true);
  expect(verifyWebhook(delivery!.body.replace('Verified Receiver', 'Forged Receiver'), header, secret)).toBe(false);
  expect(verifyWebhook(delivery!.body, header, 'whsec_wrong')).toBe(false);
  expect(verifyWebhook(delivery!.body, header, secret, 300, t + 301)).toBe(false);
  expect(verifyWebhook(delivery!.body, header, secret, 300, t + 299)).toBe(true);
  expect(verifyWebhook(delivery!.body, 'garbage', secret)).toBe(false);

  const now = Math.floor(Date.now() / 1000);
  expect(
    await pythonVerify([
      { body: delivery!.body, header, secret, now },
      { body: delivery!.body.replace('Verified Receiver', 'Forged Receiver'), header, secret, now },
      { body: delivery!.body, header, secret: 'whsec_wrong', now },
      { body: delivery!.body, header, secret, now: t + 301 },
      { body: delivery!.body, header: 'garbage', secret, now },
    ]),
  ).toEqual([true, false, false, false, false]);

  // The delivery is what /openapi.json `webhooks` says: envelope, data schema, headers.
  const document = (await apiClient(app.baseUrl).get('/openapi.json')).body;
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: 'doc' });
  const validate = ajv.getSchema('doc#/webhooks/customer.created/post/requestBody/content/application~1json/schema')!;
  expect(validate(delivery!.json) ? [] : validate.errors).toEqual([]);
  for (const parameter of document.webhooks['customer.created'].post.parameters as {
    name: string;
    schema: { pattern?: string };
  }[]) {
    expect(delivery!.headers[parameter.name]).toEqual(expect.any(String));
    if (parameter.schema.pattern)
      expect(String(delivery!.headers[parameter.name])).toMatch(new RegExp(parameter.schema.pattern));
  }
});
