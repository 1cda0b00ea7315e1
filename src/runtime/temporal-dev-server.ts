import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { spawnBound } from './processes';
import { SEARCH_ATTRIBUTE_FLAGS } from '../temporal';
import { temporalCliPath } from './tools';

export interface DevServer {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

export function portAnswers(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function waitForPort(
  port: number,
  child: ChildProcess,
  timeoutMs: number,
  name = 'Temporal dev server',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    if (await portAnswers(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${name} did not listen on ${port} within ${timeoutMs} ms`);
}

/**
 * Stops a child process with SIGTERM and resolves when it has exited; with `killAfterMs`, one still
 * running after that long gets SIGKILL.
 */
export function stopChild(child: ChildProcess, killAfterMs?: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * `temporal server start-dev` with SQLite persistence, Web UI, and the project's search attributes.
 * If the port already answers (a server left running), it is reused. `detached`: in a process group of
 * its own, so a terminal's Ctrl-C reaches only the process that started it, which stops it in its turn.
 */
export async function startTemporalDevServer(options: {
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
  logFile?: string;
  detached?: boolean;
  /** The Web UI's codec endpoint (src/temporal/codec-server.ts), as the browser reaches it. */
  codecEndpoint?: string;
}): Promise<DevServer> {
  const address = `127.0.0.1:${options.port}`;
  const uiUrl = `http://localhost:${options.uiPort}`;
  if (await portAnswers(options.port)) return { address, uiUrl, stop: async () => undefined };

  fs.mkdirSync(options.dataDir, { recursive: true });
  const out = options.logFile ? fs.openSync(options.logFile, 'a') : 'ignore';
  const child = spawnBound(
    temporalCliPath(),
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(options.port),
      '--ui-port',
      String(options.uiPort),
      '--db-filename',
      path.join(options.dataDir, 'temporal.sqlite'),
      '--namespace',
      options.namespace,
      '--log-level',
      'warn',
      // WAL with synchronous=NORMAL: one fsync per checkpoint instead of one per write, which is what
      // limits the single SQLite writer (a crash of the process loses nothing; an OS crash may lose
      // the last moments, acceptable for a development server).
      '--sqlite-pragma',
      'journal_mode=wal',
      '--sqlite-pragma',
      'synchronous=normal',
      ...SEARCH_ATTRIBUTE_FLAGS,
      ...(options.codecEndpoint ? ['--ui-codec-endpoint', options.codecEndpoint] : []),
    ],
    { stdio: ['ignore', out, out], detached: options.detached ?? false },
  );
  await waitForPort(options.port, child, 60_000);
  return {
    address,
    uiUrl,
    stop: () => stopChild(child),
  };
}
