import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess, type SpawnOptions, type StdioOptions } from 'node:child_process';
import { projectRoot } from '../config';

/**
 * Node's arguments that run a TypeScript file of the project: tsx's CommonJS register (the project is
 * CommonJS). `--import tsx` (and the `tsx` command) also registers its ES module hooks, which Node runs
 * on a loader thread of their own: memory the service does not need (docs/performance.md, Third round).
 */
export const TSX_NODE_ARGS = ['--require', 'tsx/cjs'] as const;

/**
 * How a worker process is started, beyond TSX_NODE_ARGS (the `start:worker` script says the same; docs/performance.md,
 * Third round). Node's V8 flag: each V8 heap (the main thread's and the SDK's workflow thread's) keeps a young
 * generation of at most 2 x 4 MB instead of 2 x 16 MB. The environment: glibc keeps at most two malloc arenas
 * (instead of 8 per core), so the memory the Temporal core's threads free is reused instead of growing
 * new arenas; an explicit MALLOC_ARENA_MAX wins.
 */
export const WORKER_NODE_ARGS = ['--max-semi-space-size=4'] as const;
export const WORKER_ENV_DEFAULTS = { MALLOC_ARENA_MAX: '2' } as const;

const SETPRIV = '/usr/bin/setpriv';
const hasSetpriv = fs.existsSync(SETPRIV);

/**
 * spawn(), with the child bound to this process's life: on Linux it runs under util-linux's setpriv
 * with a parent-death signal, so when this process dies without stopping it (kill -9 of `npm start`,
 * an out-of-memory kill) the kernel sends the child `onParentDeath` and nothing is left running. It is
 * the same process (setpriv execs the command), so its pid, exit and signals are the command's. Where
 * setpriv is missing, a plain spawn.
 */
export function spawnBound(
  command: string,
  args: readonly string[],
  options: SpawnOptions,
  onParentDeath: 'TERM' | 'INT' = 'TERM',
): ChildProcess {
  return hasSetpriv
    ? spawn(SETPRIV, ['--pdeathsig', onParentDeath, '--', command, ...args], options)
    : spawn(command, [...args], options);
}

/**
 * Runs one of the service's entry points (`api.ts`, `worker.ts`, `build-workflows.ts` in src/cli) as a child process, as production runs it.
 * `detached`: in a process group of its own, so a terminal's Ctrl-C (SIGINT to its foreground group) reaches only the
 * parent, which stops its children in order (`npm start`, docs/operations.md).
 */
export function spawnService(
  script: 'api.ts' | 'worker.ts' | 'build-workflows.ts',
  env: NodeJS.ProcessEnv,
  stdio: StdioOptions = ['ignore', 'inherit', 'inherit'],
  args: string[] = [],
  options: { detached?: boolean } = {},
): ChildProcess {
  const worker = script === 'worker.ts';
  return spawnBound(
    process.execPath,
    [...TSX_NODE_ARGS, ...(worker ? WORKER_NODE_ARGS : []), path.join(projectRoot, 'src', 'cli', script), ...args],
    {
      cwd: projectRoot,
      env: worker ? { ...WORKER_ENV_DEFAULTS, ...env } : env,
      stdio,
      detached: options.detached ?? false,
    },
  );
}
