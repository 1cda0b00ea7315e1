import fs from 'node:fs';
import path from 'node:path';
import { spawnBound } from './processes';
import { freePortBlock } from './ports';
import { projectRoot } from '../config';
import { portAnswers, stopChild, waitForPort, type DevServer } from './temporal-dev-server';
import { temporalCliPath, temporalServerTools } from './tools';

/**
 * The frontend port and the ports derived from it, placed as the defaults are around 7233. The server
 * stores its ports in a smallint column (cluster membership): every one must stay below 32768.
 */
export function temporalServerPorts(frontend: number) {
  if (frontend < 1324 || frontend > 32000)
    throw new Error(`TEMPORAL_PORT must be between 1324 and 32000 for the server engine, got ${frontend}`);
  return {
    TEMPORAL_PORT: frontend,
    TEMPORAL_HISTORY_PORT: frontend + 1,
    TEMPORAL_MATCHING_PORT: frontend + 2,
    TEMPORAL_WORKER_PORT: frontend + 6,
    TEMPORAL_HTTP_PORT: frontend + 10,
    TEMPORAL_FRONTEND_MEMBERSHIP_PORT: frontend - 300,
    TEMPORAL_HISTORY_MEMBERSHIP_PORT: frontend - 299,
    TEMPORAL_MATCHING_MEMBERSHIP_PORT: frontend - 298,
    TEMPORAL_WORKER_MEMBERSHIP_PORT: frontend - 294,
  };
}

/** A frontend port (20000..30000) whose derived ports are all free: for stacks side by side (tests, bench). */
export function freeTemporalServerPort(): Promise<number> {
  const offsets = Object.values(temporalServerPorts(20_000)).map((port) => port - 20_000);
  return freePortBlock(offsets);
}

/** The setup script's database variables from a PostgreSQL URL: its database holds history, `<name>_visibility` visibility. */
export function temporalDatabaseEnv(databaseUrl: string): Record<string, string> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'temporal';
  return {
    TEMPORAL_DB_HOST: url.hostname,
    TEMPORAL_DB_PORT: url.port || '5432',
    TEMPORAL_DB_USER: decodeURIComponent(url.username),
    TEMPORAL_DB_PASSWORD: decodeURIComponent(url.password),
    TEMPORAL_DB_NAME: name,
    TEMPORAL_VISIBILITY_DB_NAME: `${name}_visibility`,
  };
}

const SETUP_SCRIPT = path.join(projectRoot, 'scripts', 'temporal-setup.sh');

/** Runs one step of scripts/temporal-setup.sh to its end; its output goes to the log, and into the error when it fails. */
function setupStep(step: string, env: NodeJS.ProcessEnv, logFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnBound('sh', [SETUP_SCRIPT, step], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      fs.appendFileSync(logFile, chunk);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) return resolve();
      reject(
        new Error(`temporal-setup.sh ${step} failed (exit ${code}):\n${output.split('\n').slice(-20).join('\n')}`),
      );
    });
  });
}

/**
 * The Temporal server on PostgreSQL (the `server` engine): its two databases created and migrated on
 * `databaseUrl`'s cluster, the server started from deploy/temporal/config/production.yaml, the namespace and
 * search attributes registered, and the Web UI server on `uiPort`. Every step is scripts/temporal-setup.sh,
 * the same steps docker-compose.yml runs. If the frontend port already answers, that server is reused.
 */
export async function startTemporalServer(options: {
  /** A PostgreSQL URL whose user may create databases; its database name is used for history (`temporal`). */
  databaseUrl: string;
  port: number;
  uiPort: number;
  namespace: string;
  logFile: string;
  log?: (line: string) => void;
  /** The server and UI in process groups of their own (see startTemporalDevServer). */
  detached?: boolean;
  /** The Web UI's codec endpoint (deploy/temporal/ui/production.yaml `codec.endpoint`). */
  codecEndpoint?: string;
}): Promise<DevServer> {
  const address = `127.0.0.1:${options.port}`;
  const uiUrl = `http://localhost:${options.uiPort}`;
  if (await portAnswers(options.port)) return { address, uiUrl, stop: async () => undefined };

  const tools = temporalServerTools();
  const log = options.log ?? (() => undefined);
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...temporalDatabaseEnv(options.databaseUrl),
    ...Object.fromEntries(
      Object.entries(temporalServerPorts(options.port)).map(([key, value]) => [key, String(value)]),
    ),
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: options.namespace,
    TEMPORAL_UI_PORT: String(options.uiPort),
    ...(options.codecEndpoint ? { TEMPORAL_CODEC_ENDPOINT: options.codecEndpoint } : {}),
    TEMPORAL_SERVER_BIN: tools.server,
    TEMPORAL_SQL_TOOL: tools.sqlTool,
    TEMPORAL_SCHEMA_DIR: tools.schemaDir,
    TEMPORAL_UI_SERVER_BIN: tools.uiServer,
    TEMPORAL_CLI: temporalCliPath(),
  };

  let started = Date.now();
  await setupStep('schema', env, options.logFile);
  log(`Temporal schema up to date (${Date.now() - started} ms)`);

  started = Date.now();
  const out = fs.openSync(options.logFile, 'a');
  const server = spawnBound('sh', [SETUP_SCRIPT, 'serve'], {
    env,
    stdio: ['ignore', out, out],
    detached: options.detached ?? false,
  });
  const ui = { child: undefined as ReturnType<typeof spawnBound> | undefined };
  const stop = async () => {
    if (ui.child) await stopChild(ui.child);
    await stopChild(server);
  };
  try {
    await waitForPort(options.port, server, 120_000, `Temporal server (log: ${options.logFile})`);
    const died = new Promise<never>((_, reject) =>
      server.once('exit', (code) =>
        reject(new Error(`Temporal server exited with code ${code} (log: ${options.logFile})`)),
      ),
    );
    died.catch(() => undefined);
    await Promise.race([setupStep('register', env, options.logFile), died]);
    log(`Temporal server ready, namespace ${options.namespace} registered (${Date.now() - started} ms)`);
    ui.child = spawnBound('sh', [SETUP_SCRIPT, 'ui'], {
      env,
      stdio: ['ignore', out, out],
      detached: options.detached ?? false,
    });
    await waitForPort(options.uiPort, ui.child, 60_000, `Temporal UI server (log: ${options.logFile})`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, uiUrl, stop };
}
