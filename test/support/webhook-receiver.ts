import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  /** Wall-clock ms when the request body had arrived. */
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, exactly as signed. */
  body: string;
  json: any;
}

/** What the receiver answers: a status (with optional headers), or `hang` to never answer. */
export type Reply = number | { status: number; headers?: Record<string, string> } | 'hang';
export type Responder = Reply | ((request: ReceivedWebhook, index: number) => Reply);

function asFunction(responder: Responder): (request: ReceivedWebhook, index: number) => Reply {
  return typeof responder === 'function' ? responder : () => responder;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Changes the answer for the requests to come. */
  reply(responder: Responder): void;
  /** Resolves once `count` requests (matching `filter`) have arrived. */
  waitFor(
    count: number,
    options?: { timeoutMs?: number; filter?: (request: ReceivedWebhook) => boolean },
  ): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 (an ephemeral port unless `port` is given). */
export async function startWebhookReceiver(
  options: { port?: number; reply?: Responder } = {},
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let responder = asFunction(options.reply ?? 200);
  const waiters = new Set<() => void>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const request: ReceivedWebhook = { at: Date.now(), path: req.url ?? '/', headers: req.headers, body, json };
      received.push(request);
      const reply = responder(request, received.length - 1);
      for (const wake of [...waiters]) wake();
      if (reply === 'hang') return;
      const { status, headers } = typeof reply === 'number' ? { status: reply, headers: {} } : reply;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    reply(next) {
      responder = asFunction(next);
    },
    waitFor(count, { timeoutMs = 20_000, filter = () => true } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const matching = received.filter(filter);
          if (matching.length < count) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(matching);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `expected ${count} webhook requests within ${timeoutMs} ms, got ${received.filter(filter).length}`,
            ),
          );
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
