import path from 'node:path';
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { projectRoot } from '../config';

/** Runs one of the service's entry points (`api.ts`, `worker.ts`, `build-workflows.ts` in src/cli) as a child process, as production runs it. */
export function spawnService(
  script: 'api.ts' | 'worker.ts' | 'build-workflows.ts',
  env: NodeJS.ProcessEnv,
  stdio: StdioOptions = ['ignore', 'inherit', 'inherit'],
  args: string[] = [],
): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src', 'cli', script), ...args], { cwd: projectRoot, env, stdio });
}
