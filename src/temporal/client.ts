import { Client, Connection, type ConnectionLike } from '@temporalio/client';
import { config } from '../config';
import { billingDataConverter } from './payload-codec';

/**
 * A Temporal client on `connection` with the service's data converter (payloads encrypted,
 * src/temporal/payload-codec.ts). Every client the service makes is made here.
 */
export function temporalClient(connection: ConnectionLike, namespace = config.temporalNamespace): Client {
  return new Client({ connection, namespace, dataConverter: billingDataConverter() });
}

export async function connectTemporalClient(address = config.temporalAddress, namespace = config.temporalNamespace) {
  const connection = await Connection.connect({ address });
  return { client: temporalClient(connection, namespace), connection };
}
