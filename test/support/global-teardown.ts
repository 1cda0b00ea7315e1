import fs from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const services = (globalThis as Record<string, unknown>).__billingTestServices as
    | {
        database: { stop(): Promise<void> };
        temporal: { stop(): Promise<void> };
        runDir: string;
        codecServer?: { close(): void };
      }
    | undefined;
  if (!services) return;
  services.codecServer?.close();
  await Promise.allSettled([services.database.stop(), services.temporal.stop()]);
  fs.rmSync(services.runDir, { recursive: true, force: true });
}
