import { z } from 'zod';
import type { AppDeps } from '../http/app-deps';
import { pingDatabase } from './health.records';

const state = z.enum(['ok', 'unavailable']);
export const healthSchema = z.object({ status: state, database: state, temporal: state }).meta({ id: 'Health' });
export type Health = z.output<typeof healthSchema>;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref()),
  ]);
}

/** Both dependencies answer within 2 s, or the service reports itself unavailable (503). */
export async function checkHealth(deps: Pick<AppDeps, 'prisma' | 'temporal'>): Promise<Health> {
  const [database, temporal] = await Promise.all([
    withTimeout(pingDatabase(deps.prisma), 2000).then(
      () => 'ok' as const,
      () => 'unavailable' as const,
    ),
    withTimeout(deps.temporal.workflowService.getSystemInfo({}), 2000).then(
      () => 'ok' as const,
      () => 'unavailable' as const,
    ),
  ]);
  return { status: database === 'ok' && temporal === 'ok' ? 'ok' : 'unavailable', database, temporal };
}
