import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { paths } from '../../src/config';
import { spawnBound } from '../../src/runtime/processes';
import { stopChild, waitForPort } from '../../src/runtime/temporal-dev-server';
import { toolVersions } from '../../src/runtime/tools';
import { freePort } from './ports';

/**
 * Stripe's own test tools, installed by `npm install` (scripts/bootstrap.mjs) into .tools/:
 * stripe-mock validates every request against Stripe's OpenAPI and answers fixtures (no state, no
 * declines); localstripe keeps state and declines Stripe's decline test cards. Each runs on free
 * ports of its own, as `STRIPE_API_BASE` sees it (`http://127.0.0.1:<port>`).
 */
export interface StripeStandIn {
  apiBase: string;
  port: number;
  stop(): Promise<void>;
}

export const stripeMockPath = path.join(paths.tools, 'stripe-mock', toolVersions.stripeMock, 'stripe-mock');
const localstripeDir = path.join(paths.tools, 'localstripe', toolVersions.localstripe);
const localstripePython = path.join(localstripeDir, 'venv', 'bin', 'python3');

/** Why a Stripe tool cannot run here (so its tests skip, saying so), or null. */
export function stripeToolMissing(tool: 'stripe-mock' | 'localstripe'): string | null {
  const installed =
    tool === 'stripe-mock' ? fs.existsSync(stripeMockPath) : fs.existsSync(path.join(localstripeDir, '.complete'));
  return installed ? null : `${tool} is not installed in ${paths.tools} (npm run bootstrap: it needs Go / python3)`;
}

async function started(child: ChildProcess, port: number, name: string): Promise<StripeStandIn> {
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  try {
    await waitForPort(port, child, 60_000, name);
  } catch (error) {
    await stopChild(child, 2_000);
    throw new Error(`${(error as Error).message}\n${output.join('').slice(-2000)}`, { cause: error });
  }
  return { apiBase: `http://127.0.0.1:${port}`, port, stop: () => stopChild(child, 5_000) };
}

/** stripe-mock on 127.0.0.1 only: given only -http-addr it would also open HTTPS on every interface. */
export async function startStripeMock(): Promise<StripeStandIn> {
  const missing = stripeToolMissing('stripe-mock');
  if (missing) throw new Error(missing);
  const [port, httpsPort] = [await freePort(), await freePort()];
  const child = spawnBound(
    stripeMockPath,
    ['-http-addr', `127.0.0.1:${port}`, '-https-addr', `127.0.0.1:${httpsPort}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return started(child, port, 'stripe-mock');
}

/**
 * localstripe on a port of its own, from an empty store. Upstream pickles its whole store to
 * /tmp/localstripe.pickle after every write, a file every instance on the machine would share: the
 * dump is turned off, so parallel test files never see each other's objects. It predates
 * `automatic_payment_methods` (which Stripe needs for an off-session confirm without a return URL) and
 * refuses it, nor a PaymentIntent's `description` (the invoice's, which the adapter sends): the stand-in drops
 * both. Its list of PaymentIntents takes no filter: the stand-in filters it by `customer` and `created[gte]`,
 * newest first, as Stripe does (what `retrieveCharge` asks). It listens on every interface (no option says
 * otherwise).
 */
export async function startLocalstripe(): Promise<StripeStandIn> {
  const missing = stripeToolMissing('localstripe');
  if (missing) throw new Error(missing);
  const port = await freePort();
  const program = [
    'import sys',
    'import localstripe.resources as resources',
    'resources.Store.dump_to_disk = lambda self: None',
    'create_intent = resources.PaymentIntent._api_create.__func__',
    'resources.PaymentIntent._api_create = classmethod(',
    '    lambda cls, automatic_payment_methods=None, description=None, **data: create_intent(cls, **data))',
    'list_all = resources.StripeObject._api_list_all.__func__',
    'def list_intents(cls, url, customer=None, created=None, limit=None, starting_after=None):',
    '    since = int((created or {}).get("gte", 0))',
    '    listed = list_all(cls, url, limit=limit, starting_after=starting_after)',
    '    kept = [i for i in listed._list if customer in (None, i.customer) and i.created >= since]',
    '    listed._list = sorted(kept, key=lambda i: i.created, reverse=True)',
    '    return listed',
    'resources.PaymentIntent._api_list_all = classmethod(list_intents)',
    'from localstripe.server import start',
    `sys.argv = ['localstripe', '--port', '${port}', '--from-scratch']`,
    'start()',
  ].join('\n');
  const child = spawnBound(localstripePython, ['-c', program], { stdio: ['ignore', 'pipe', 'pipe'] });
  return started(child, port, 'localstripe');
}

/** A request the proxy passed on (or answered itself), as Stripe would have received it. */
export interface ProxiedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The form-encoded body, decoded (`metadata[invoice_id]` as its own key). */
  form: Record<string, string>;
  /** The upstream's status and JSON answer, when it was asked. */
  answered?: { status: number; body: any };
}

/**
 * What the proxy does with the next requests: `forward` (the default) passes them on; `cut` passes a
 * request on, lets the upstream answer, then destroys the connection (the request reached Stripe, its
 * answer was lost); `hold` passes a request on, lets the upstream answer, and keeps that answer (the
 * caller waits, as for a slow network, until it dies or the proxy closes); a status answers that status
 * with a Stripe error body without passing it on.
 */
export type ProxyMode =
  | 'forward'
  | 'cut'
  | 'hold'
  | { status: number; error: { type: string; code?: string; message: string } }
  | ReshapeMode;

/**
 * Passes a request on (stripe-mock still validates it) and answers what `reshape` makes of the upstream's
 * answer, for the objects stripe-mock's fixtures never are (a us_bank_account method, a `processing` PaymentIntent).
 * Only 200 answers are reshaped.
 */
export interface ReshapeMode {
  reshape: (answer: any, request: ProxiedRequest) => any;
}

export interface StripeProxy {
  apiBase: string;
  requests: ProxiedRequest[];
  mode(next: ProxyMode): void;
  /**
   * Answers `body` (200) to every GET of `path` instead of asking the upstream: Stripe's state where stripe-mock's
   * fixtures cannot hold it (a card_present charge, a succeeded PaymentIntent). Null stops it.
   */
  answer(path: string, body: object | null): void;
  /** The next request held (mode `hold`) once the upstream has answered it. */
  nextHeld(): Promise<ProxiedRequest>;
  close(): Promise<void>;
}

/** An HTTP proxy in front of stripe-mock or localstripe that records what the adapter sends and can lose answers. */
export async function startStripeProxy(upstream: string): Promise<StripeProxy> {
  const requests: ProxiedRequest[] = [];
  let current: ProxyMode = 'forward';
  const answers = new Map<string, object>();
  const held: ProxiedRequest[] = [];
  const heldWaiters: ((request: ProxiedRequest) => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const recorded: ProxiedRequest = {
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        form: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))),
      };
      requests.push(recorded);
      const mode = current;
      const fixed = req.method === 'GET' ? answers.get(req.url!.split('?')[0]!) : undefined;
      if (fixed) {
        recorded.answered = { status: 200, body: fixed };
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_proxy' });
        res.end(JSON.stringify(fixed));
        return;
      }
      if (typeof mode === 'object' && !('reshape' in mode)) {
        res.writeHead(mode.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: mode.error }));
        return;
      }
      const headers = { ...req.headers };
      delete headers.host;
      fetch(`${upstream}${req.url}`, {
        method: req.method,
        headers: headers as Record<string, string>,
        body: raw.length > 0 ? raw : undefined,
      })
        .then(async (answer) => {
          let text = await answer.text();
          recorded.answered = { status: answer.status, body: text ? JSON.parse(text) : undefined };
          if (typeof mode === 'object' && answer.status === 200) {
            recorded.answered.body = mode.reshape(recorded.answered.body, recorded);
            text = JSON.stringify(recorded.answered.body);
          }
          if (mode === 'cut') {
            req.socket.destroy();
            return;
          }
          if (mode === 'hold') {
            const waiter = heldWaiters.shift();
            if (waiter) waiter(recorded);
            else held.push(recorded);
            return;
          }
          res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': 'req_proxy' });
          res.end(text);
        })
        .catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    apiBase: `http://127.0.0.1:${port}`,
    requests,
    mode: (next) => {
      current = next;
    },
    answer: (path, body) => {
      if (body) answers.set(path, body);
      else answers.delete(path);
    },
    nextHeld: () => {
      const first = held.shift();
      return first ? Promise.resolve(first) : new Promise((resolve) => heldWaiters.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
