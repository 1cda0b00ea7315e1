import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionLike,
  type ClientInterceptors,
  type ConnectionOptions,
} from '@temporalio/client';
import { config } from '../config';
import { billingDataConverter } from './payload-codec';

/**
 * A Temporal client on `connection` with the service's data converter (payloads encrypted,
 * src/temporal/payload-codec.ts). Every client the service makes is made here; `interceptors` let a test count the
 * calls the service makes through it.
 */
export function temporalClient(
  connection: ConnectionLike,
  namespace = config.temporalNamespace,
  interceptors?: ClientInterceptors,
): Client {
  return new Client({ connection, namespace, dataConverter: billingDataConverter(), interceptors });
}

/**
 * Connection.connect whose calls are no longer retried once `close()` was called. The SDK's retry
 * interceptor retries a call that failed on a timer, creating the new call on the channel when the timer
 * fires; a channel closed meanwhile throws "Channel has been shut down" from that timer, an uncaught
 * exception (a process stopping, or a test file ending, with a call in flight). So `close()` stops
 * further retries, waits for the retries already scheduled to have started their call (a few seconds
 * at most: the SDK's backoff), then closes; those calls then fail as closed, and are not retried.
 */
export async function connectTemporal(options: ConnectionOptions): Promise<Connection> {
  let closing = false;
  const scheduledRetries = new Set<Promise<void>>();
  const retry = defaultGrpcRetryOptions();
  const connection = await Connection.connect({
    ...options,
    interceptors: [
      makeGrpcRetryInterceptor({
        ...retry,
        retryableDecider: (attempt, status) => !closing && retry.retryableDecider(attempt, status),
        delayFunction: (attempt, status) => {
          const delay = retry.delayFunction(attempt, status);
          // Settles just after the SDK's own timer of `delay` has fired and started the retry's call.
          const started = new Promise<void>((resolve) => setTimeout(resolve, delay + 5));
          scheduledRetries.add(started);
          void started.then(() => scheduledRetries.delete(started));
          return delay;
        },
      }),
    ],
  });
  const close = connection.close.bind(connection);
  connection.close = async () => {
    closing = true;
    await Promise.all([...scheduledRetries]);
    return close();
  };
  return connection;
}

export async function connectTemporalClient(address = config.temporalAddress, namespace = config.temporalNamespace) {
  const connection = await connectTemporal({ address });
  return { client: temporalClient(connection, namespace), connection };
}
