import http from 'node:http';
import type { AppDeps } from './app';
import { createApp } from './app';

export async function listen(deps: AppDeps, port: number): Promise<http.Server> {
  const server = http.createServer(createApp(deps));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, resolve);
  });
  return server;
}
