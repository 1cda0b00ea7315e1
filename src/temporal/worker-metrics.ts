import http from 'node:http';
import net from 'node:net';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { ledgerRegistry } from '../transactions';

/**
 * A worker process's GET /metrics (WORKER_METRICS_PORT, docs/operations.md "Metrics and alerts"): the
 * Temporal SDK's metrics, which its native exporter serves on a loopback port of its own (`temporal_*`,
 * `billing_webhook_attempts`), followed by this process's prom-client registry: the ledger's money
 * counters (renewals, dunning retries and payment-plan installments are charged here) and the process
 * metrics. One scrape target per worker process.
 */
export interface WorkerMetricsServer {
  port: number;
  close(): Promise<void>;
}

/** A loopback port free at the moment, for the SDK's exporter (only this process reads it). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function createWorkerRegistry(): Registry {
  const own = new Registry();
  collectDefaultMetrics({ register: own });
  return Registry.merge([own, ledgerRegistry]);
}

export async function serveWorkerMetrics(options: {
  port: number;
  host?: string;
  sdkMetricsUrl: string;
  registry?: Registry;
}): Promise<WorkerMetricsServer> {
  const registry = options.registry ?? createWorkerRegistry();
  const sdkUp = new Gauge({
    name: 'billing_worker_sdk_metrics_up',
    help: "1 when this scrape could read the Temporal SDK's metrics of the worker process (the temporal_* series above), 0 otherwise",
    registers: [],
  });
  const withSdkUp = Registry.merge([registry]);
  withSdkUp.registerMetric(sdkUp);

  async function render(): Promise<string> {
    let sdk = '';
    try {
      const response = await fetch(options.sdkMetricsUrl, { signal: AbortSignal.timeout(3_000) });
      if (!response.ok) throw new Error(`status ${response.status}`);
      sdk = await response.text();
      sdkUp.set(1);
    } catch {
      sdkUp.set(0);
    }
    const own = await withSdkUp.metrics();
    return sdk === '' ? own : `${sdk.endsWith('\n') ? sdk : `${sdk}\n`}${own}`;
  }

  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n');
      return;
    }
    render().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${error.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
