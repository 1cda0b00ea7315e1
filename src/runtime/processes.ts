import path from 'node:path';
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { projectRoot } from '../config';

/**
 * Node's arguments that run a TypeScript file of the project: tsx's CommonJS register (the project is
 * CommonJS). `--import tsx` also registers its ES module hooks, which Node runs on a loader thread of
 * their own: memory the service does not need (docs/performance.md, Third round).
 */
export const TSX_NODE_ARGS = ['--require', 'tsx/cjs'] as const;

/** Runs one of the service's entry points (`api.ts`, `worker.ts`, `build-workflows.ts` in src/cli) as a child process, as production runs it. */
export function spawnService(
  script: 'api.ts' | 'worker.ts' | 'build-workflows.ts',
  env: NodeJS.ProcessEnv,
  stdio: StdioOptions = ['ignore', 'inherit', 'inherit'],
  args: string[] = [],
): ChildProcess {
  return spawn(process.execPath, [...TSX_NODE_ARGS, path.join(projectRoot, 'src', 'cli', script), ...args], { cwd: projectRoot, env, stdio });
}
