import { DefaultLogger, Runtime, type LogEntry, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../http/logger';

const SEVERITY: Record<LogLevel, number> = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 };
const PINO_LEVEL = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * The Temporal SDK's logs as pino JSON lines. Logs written inside a workflow or an activity (the SDK
 * adds their context) carry `workflowId` and `runId` (activities: also `activityId`, `activityType`,
 * `attempt`) and pass at pino's own level; the SDK's other logs (bundling, polling, core) pass from
 * `sdkLevel` up (TEMPORAL_LOG_LEVEL, WARN by default: it logs every bundling step at INFO).
 */
export function temporalLogger(log: Logger, sdkLevel: LogLevel = 'WARN'): DefaultLogger {
  return new DefaultLogger('TRACE', (entry: LogEntry) => {
    const {
      workflowId,
      runId,
      workflowRunId,
      error,
      taskToken: _taskToken,
      ...rest
    } = (entry.meta ?? {}) as Record<string, unknown>;
    const inWorkflowContext = workflowId !== undefined;
    if (!inWorkflowContext && SEVERITY[entry.level] < SEVERITY[sdkLevel]) return;
    const fields = {
      ...rest,
      ...(inWorkflowContext ? { workflowId, runId: runId ?? workflowRunId } : {}),
      ...(error ? { err: error } : {}),
    };
    log[PINO_LEVEL[entry.level]](fields, entry.message);
  });
}

/**
 * Installs the worker process's Temporal runtime once: its logs through pino, and, when `metricsPort`
 * is given, the SDK's Prometheus exporter (`temporal_*` series, plus the service's own
 * `billing_webhook_attempts`) on <metricsHost, default 0.0.0.0>:<metricsPort>/metrics. The worker
 * process binds it to loopback and serves it with its own metrics (src/temporal/worker-metrics.ts).
 */
export function installWorkerRuntime(options: {
  logger: Logger;
  sdkLogLevel?: LogLevel;
  metricsPort?: number;
  metricsHost?: string;
}): Runtime {
  const bindAddress = `${options.metricsHost ?? '0.0.0.0'}:${options.metricsPort}`;
  return Runtime.install({
    logger: temporalLogger(options.logger, options.sdkLogLevel),
    ...(options.metricsPort ? { telemetryOptions: { metrics: { prometheus: { bindAddress } } } } : {}),
  });
}
