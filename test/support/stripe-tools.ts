import fs from 'node:fs';
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
 * dump is turned off, so parallel test files never see each other's objects. It listens on every
 * interface (no option says otherwise).
 */
export async function startLocalstripe(): Promise<StripeStandIn> {
  const missing = stripeToolMissing('localstripe');
  if (missing) throw new Error(missing);
  const port = await freePort();
  const program = [
    'import sys',
    'import localstripe.resources as resources',
    'resources.Store.dump_to_disk = lambda self: None',
    'from localstripe.server import start',
    `sys.argv = ['localstripe', '--port', '${port}', '--from-scratch']`,
    'start()',
  ].join('\n');
  const child = spawnBound(localstripePython, ['-c', program], { stdio: ['ignore', 'pipe', 'pipe'] });
  return started(child, port, 'localstripe');
}
