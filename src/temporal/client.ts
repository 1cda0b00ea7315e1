import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionLike,
  type ConnectionOptions,
} from '@temporalio/client';
import { config } from '../config';
import { billingDataConverter } from './payload-codec';

/**
 * A Temporal client on `connection` with the service's data converter (payloads encrypted,
 * src/temporal/payload-codec.ts). Every client the service makes is made here.
 */
export function temporalClient(connection: ConnectionLike, namespace = config.temporalNamespace): Client {
  return new Client({ connection, namespace, dataConverter: billingDataConverter() });
}

/**
 * Connection.connect whose calls are no longer retried once `close()` was called. The SDK's retry
 * interceptor retries a call that failed as the connection closed, on a timer, against the closed
 * channel; that throws "Channel has been shut down" from the timer, an uncaught exception (a process
 * stopping, or a test file ending, with a call in flight).
 */
export async function connectTemporal(options: ConnectionOptions): Promise<Connection> {
  let closing = false;
  const retry = defaultGrpcRetryOptions();
  const connection = await Connection.connect({
    ...options,
    interceptors: [
      makeGrpcRetryInterceptor({
        ...retry,
        retryableDecider: (attempt, status) => !closing && retry.retryableDecider(attempt, status),
      }),
    ],
  });
  const close = connection.close.bind(connection);
  connection.close = () => {
    closing = true;
    return close();
  };
  return connection;
}

export async function connectTemporalClient(address = config.temporalAddress, namespace = config.temporalNamespace) {
  const connection = await connectTemporal({ address });
  return { client: temporalClient(connection, namespace), connection };
}
