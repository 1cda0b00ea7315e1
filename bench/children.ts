import path from 'node:path';
import readline from 'node:readline';
import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../src/config';
import { TSX_NODE_ARGS, WORKER_ENV_DEFAULTS, WORKER_NODE_ARGS } from '../src/runtime/processes';

/**
 * A bench process started as `npm start` starts the service's (src/runtime/processes.ts; the worker with its
 * V8 flag and malloc setting), with every thread's GC reachable (bench/thread-memory.ts).
 */
export function spawnTsx(file: string, args: string[], env: NodeJS.ProcessEnv, worker = false): ChildProcess {
  const probe = path.join(__dirname, 'thread-memory.ts');
  // BENCH_CPU_PROFILE_DIR: each child (API and workers) writes V8 CPU profiles (every thread) there when it exits.
  const profile = process.env.BENCH_CPU_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE_DIR}`]
    : [];
  const nodeArgs = [
    '--expose-gc',
    ...profile,
    ...TSX_NODE_ARGS,
    ...(worker ? WORKER_NODE_ARGS : []),
    '--require',
    probe,
  ];
  return spawn(process.execPath, [...nodeArgs, path.join(__dirname, file), ...args], {
    cwd: projectRoot,
    env: { ...(worker ? WORKER_ENV_DEFAULTS : {}), ...process.env, ...env, LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

/** The JSON lines a child prints on stdout, one object each, awaited in order. */
export function jsonLines(child: ChildProcess) {
  const waiting: ((value: any) => void)[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    // The SDK core writes its own warnings to stdout (a slow workflow task on a loaded machine): passed on.
    if (!line.startsWith('{')) return void process.stderr.write(`${line}\n`);
    waiting.shift()?.(JSON.parse(line));
  });
  return () => new Promise<any>((resolve) => waiting.push(resolve));
}
