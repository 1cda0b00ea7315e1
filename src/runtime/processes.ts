import path from 'node:path';
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { projectRoot } from '../config';

/** Runs one of the service's entry points (`api.ts`, `worker.ts` in src/cli) as a child process, as production runs it. */
export function spawnService(script: 'api.ts' | 'worker.ts', env: NodeJS.ProcessEnv, stdio: StdioOptions = ['ignore', 'inherit', 'inherit']): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src', 'cli', script)], { cwd: projectRoot, env, stdio });
}
