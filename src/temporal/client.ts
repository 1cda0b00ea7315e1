import { Client, Connection } from '@temporalio/client';
import { config } from '../config';

export async function connectTemporalClient(address = config.temporalAddress, namespace = config.temporalNamespace) {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace }), connection };
}
