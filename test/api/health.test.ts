import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Connection } from '@temporalio/client';
import { createApp } from '../../src/app';
import { createPrisma } from '../../src/db/prisma';
import { apiClient, startTestApp, type TestApp } from '../support/harness';
import { temporalClient } from '../../src/temporal/client';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('GET /health', () => {
  it('is 200 without a key when PostgreSQL and Temporal answer', async () => {
    const response = await apiClient(app.baseUrl).get('/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', database: 'ok', temporal: 'ok' });
  });

  it('is 503 naming the part that does not answer', async () => {
    const prisma = createPrisma('postgresql://postgres:postgres@127.0.0.1:1/nothing', 1);
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    const server = http.createServer(createApp({ prisma, temporal: temporalClient(connection) }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await apiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`).get('/health');
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ status: 'unavailable', database: 'unavailable', temporal: 'ok' });
    } finally {
      server.closeAllConnections();
      server.close();
      await connection.close();
    }
  });
});
