import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { paths, projectRoot } from '../config';

/** Pinned toolchain versions (scripts/tool-versions.json, shared with scripts/bootstrap.mjs and the Dockerfile). */
export const toolVersions = JSON.parse(
  fs.readFileSync(path.join(projectRoot, 'scripts', 'tool-versions.json'), 'utf8'),
) as {
  temporalCli: string;
  temporalServer: string;
  temporalUiServer: string;
  timeSkippingTestServer: string;
  stripeMock: string;
  localstripe: string;
};

/** The Temporal CLI: TEMPORAL_CLI, else the project's tools folder, else a `temporal` on PATH. */
export function temporalCliPath(): string {
  if (process.env.TEMPORAL_CLI) return process.env.TEMPORAL_CLI;
  const local = path.join(paths.tools, 'bin', 'temporal');
  if (fs.existsSync(local)) return local;
  try {
    return execFileSync('sh', ['-c', 'command -v temporal'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('Temporal CLI not found: run `npm run bootstrap` (or set TEMPORAL_CLI).');
  }
}

/** Programs of the `server` engine, as built by scripts/bootstrap.mjs into .tools/. */
export function temporalServerTools(): { server: string; sqlTool: string; schemaDir: string; uiServer: string } {
  const serverDir = path.join(paths.tools, 'temporal-server', toolVersions.temporalServer);
  const uiServer = path.join(paths.tools, 'temporal-ui-server', toolVersions.temporalUiServer, 'temporal-ui-server');
  if (!fs.existsSync(path.join(serverDir, '.complete')) || !fs.existsSync(uiServer)) {
    throw new Error(
      `Temporal server ${toolVersions.temporalServer} / UI ${toolVersions.temporalUiServer} not built in ${paths.tools}: run \`npm run bootstrap\` (a few minutes, once).`,
    );
  }
  return {
    server: path.join(serverDir, 'temporal-server'),
    sqlTool: path.join(serverDir, 'temporal-sql-tool'),
    schemaDir: path.join(serverDir, 'schema', 'postgresql', 'v12'),
    uiServer,
  };
}

/** Launcher of the Java time-skipping test server, usable as an `existing-path` executable. */
export function timeSkippingServerPath(): string {
  const launcher = path.join(paths.tools, 'temporal-test-server', 'temporal-test-server');
  if (!fs.existsSync(launcher)) {
    throw new Error('Temporal time-skipping test server not found: run `npm run bootstrap`.');
  }
  return launcher;
}
