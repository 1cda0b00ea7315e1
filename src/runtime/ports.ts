import net from 'node:net';

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A base port in 20000..30000 such that base + each offset is free at the moment: for stacks started side
 * by side (tests, bench). Below Linux's ephemeral range (32768 and up) on purpose: a port the system
 * hands out for 0 is also handed to outgoing connections, so one that stays unbound for a while (a
 * process that starts later binds it) can be taken by any client's connection meanwhile.
 */
export async function freePortBlock(offsets: readonly number[]): Promise<number> {
  for (let tries = 0; tries < 50; tries += 1) {
    const base = 20_000 + Math.floor(Math.random() * 10_000);
    if ((await Promise.all(offsets.map((offset) => portFree(base + offset)))).every(Boolean)) return base;
  }
  throw new Error(`no free block of ports ${offsets.join(', ')} above a base in 20000..30000`);
}
