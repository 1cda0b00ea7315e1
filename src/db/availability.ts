import { ServiceUnavailableError } from '../http/errors';

/** Seconds a client should wait before retrying while PostgreSQL does not answer. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Prisma's codes for a server it cannot reach or a connection it lost, or a pool with no free connection. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** Socket errors of the pg driver. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** PostgreSQL SQLSTATEs: connection exceptions (class 08), shutting down or starting up (57P01-57P03), too many connections. */
const SQLSTATES = /^(08\d{3}|57P0[123]|53300)$/;
/** Driver adapter error kinds (@prisma/adapter-pg) and messages of pg and Prisma for the same cases. */
const KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
const MESSAGES =
  /Can't reach database server|Connection terminated|Server has closed the connection|terminating connection due to administrator command|the database system is (shutting down|starting up)|Client has encountered a connection error|ECONNREFUSED|timeout exceeded when trying to connect/i;

type ErrorLike = {
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: unknown;
  originalCode?: unknown;
};

/** Whether `error` (a Prisma, driver adapter or pg error, or one wrapping it) says PostgreSQL does not answer. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > 5) return false;
  const { code, kind, message, cause, meta, originalCode } = error as ErrorLike;
  if (typeof code === 'string' && (PRISMA_CODES.has(code) || SOCKET_CODES.has(code) || SQLSTATES.test(code)))
    return true;
  if (typeof originalCode === 'string' && SQLSTATES.test(originalCode)) return true;
  if (typeof kind === 'string' && KINDS.has(kind)) return true;
  if (typeof message === 'string' && MESSAGES.test(message)) return true;
  // Prisma keeps the driver adapter's error under `meta.driverAdapterError`, pg and Node under `cause`.
  const adapterError = (meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  return isDatabaseUnavailable(cause, depth + 1) || isDatabaseUnavailable(adapterError, depth + 1);
}

/** The 503 the API answers while PostgreSQL does not answer. */
export function databaseUnavailable(): ServiceUnavailableError {
  return new ServiceUnavailableError(
    'database_unavailable',
    'The database does not answer at the moment; retry later.',
    DATABASE_RETRY_AFTER_SECONDS,
  );
}

/**
 * Prisma's P2028 (interactive transaction API error): the transaction could not start within its
 * `maxWait` or expired past its `timeout`, both because the database or this process is overloaded
 * (contention on a lock such as an account's invoice-number counter). The transaction rolled back,
 * so nothing it did was written: a retryable condition, not a bug.
 */
export function isDatabaseBusy(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > 5) return false;
  if (error instanceof TransactionExpiredError) return true;
  const { code, cause, meta, originalCode } = error as ErrorLike;
  // 57014: a statement of sqlTransaction cancelled by its statement_timeout (a lock held past the transaction's timeout).
  if (code === 'P2028' || code === '57014') return true;
  // A deadlock (40P01) or a serialization failure (40001; Prisma's P2034): PostgreSQL rolled the whole
  // transaction back, as a victim of concurrent writers (counter rows, docs/decisions.md §23), so nothing
  // was written and the same request succeeds when sent again.
  if ([code, originalCode].some((sqlState) => sqlState === '40P01' || sqlState === '40001') || code === 'P2034')
    return true;
  const adapterError = (meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  return isDatabaseBusy(cause, depth + 1) || isDatabaseBusy(adapterError, depth + 1);
}

/** sqlTransaction's P2028 (src/db/sql-transaction.ts): no connection within maxWait, or the transaction ran past its timeout. */
export class TransactionExpiredError extends Error {
  constructor() {
    super(
      'The transaction could not run within its bounds (maxWait for a connection, timeout for the whole); it was rolled back.',
    );
  }
}

/** Seconds a client should wait before retrying a request the database was too busy for. */
export const DATABASE_BUSY_RETRY_AFTER_SECONDS = 1;

/** The 503 the API answers when a transaction could not be run in time under load. */
export function databaseBusy(): ServiceUnavailableError {
  return new ServiceUnavailableError(
    'database_busy',
    'The database was too busy to finish this request in time; nothing was changed by it. Retry shortly.',
    DATABASE_BUSY_RETRY_AFTER_SECONDS,
  );
}
