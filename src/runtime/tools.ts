import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { paths } from '../config';

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

/** Launcher of the Java time-skipping test server, usable as an `existing-path` executable. */
export function timeSkippingServerPath(): string {
  const launcher = path.join(paths.tools, 'temporal-test-server', 'temporal-test-server');
  if (!fs.existsSync(launcher)) {
    throw new Error('Temporal time-skipping test server not found: run `npm run bootstrap`.');
  }
  return launcher;
}
