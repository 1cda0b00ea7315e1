// Preloaded into every thread of the bench's worker process (`--require`, after tsx): the main thread
// and the Temporal SDK's workflow thread, which runs the workflows and which the main thread's `gc()`
// does not reach. `collectEveryThread()` (main thread) has each thread run a full GC (`--expose-gc`)
// and answer its V8 heap, so the process's RSS read after it holds no garbage of any thread.
import fs from 'node:fs';
import v8 from 'node:v8';
import { BroadcastChannel, isMainThread, threadId, type Worker } from 'node:worker_threads';

const CHANNEL = 'bench-thread-memory';

export interface ThreadHeap {
  threadId: number;
  /** V8 heap in use after the GC, and as reserved by V8 (bytes). */
  used: number;
  total: number;
  /** Bytes V8 holds for each heap space (new_space, old_space, code_space, ...). */
  spaces: Record<string, number>;
}

function collectThisThread(): ThreadHeap {
  (globalThis as { gc?: () => void }).gc?.();
  const heap = v8.getHeapStatistics();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size]));
  return { threadId, used: heap.used_heap_size, total: heap.total_heap_size, spaces };
}

/** Worker threads alive in this process (main thread only). */
const liveWorkers = new Set<Worker>();

if (isMainThread) {
  process.on('worker', (worker: Worker) => {
    liveWorkers.add(worker);
    worker.once('exit', () => liveWorkers.delete(worker));
  });
} else {
  const channel = new BroadcastChannel(CHANNEL);
  channel.unref();
  channel.onmessage = () => channel.postMessage(collectThisThread());
}

/** The main thread's heap and every worker thread's, each after a full GC of its own (waits up to `timeoutMs` for busy threads). */
export async function collectEveryThread(timeoutMs = 5000): Promise<ThreadHeap[]> {
  const heaps = [collectThisThread()];
  const expected = liveWorkers.size;
  if (expected === 0) return heaps;
  const channel = new BroadcastChannel(CHANNEL);
  try {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      channel.onmessage = (event) => {
        heaps.push((event as { data: ThreadHeap }).data);
        if (heaps.length > expected) {
          clearTimeout(timer);
          resolve();
        }
      };
      channel.postMessage('collect');
    });
  } finally {
    channel.close();
  }
  return heaps;
}

/** Fields of /proc/self/smaps_rollup (kB), e.g. `Rss`, `Anonymous`; empty off Linux. */
export function smapsRollup(): Record<string, number> {
  try {
    const fields: Record<string, number> = {};
    for (const line of fs.readFileSync('/proc/self/smaps_rollup', 'utf8').split('\n')) {
      const match = /^(\w+):\s+(\d+) kB/.exec(line);
      if (match) fields[match[1]!] = Number(match[2]);
    }
    return fields;
  } catch {
    return {};
  }
}
