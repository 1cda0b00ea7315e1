import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createApp } from '../../src/app';
import { apiClient, createTestAccount, startTestApp, type TestApp } from '../support/harness';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('request logs', () => {
  it('are JSON lines with a request id, and never carry the API key or request bodies', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const server = http.createServer(
      createApp({ prisma: app.prisma, temporal: app.temporal, logger: pino({ level: 'info' }, sink) }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { apiKey, accountId } = await createTestAccount(app.prisma);
      const api = apiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey);
      const created = await api.post(
        '/customers',
        { name: 'Secretive Person', phone: '+1 555 0100' },
        { 'x-request-id': 'req-test-42' },
      );
      expect(created.status).toBe(201);
      expect(created.headers.get('x-request-id')).toBe('req-test-42');
      await api.get('/customers/cus_missing');
      await apiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`).get('/customers/cus_nokey');

      const entries = lines.map((line) => JSON.parse(line));
      expect(entries).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            msg: 'request',
            requestId: 'req-test-42',
            accountId,
            method: 'POST',
            route: '/customers',
            path: '/customers',
            status: 201,
          }),
          expect.objectContaining({
            msg: 'request',
            accountId,
            method: 'GET',
            route: '/customers/{externalKey}',
            path: '/customers/cus_missing',
            status: 404,
            requestId: expect.any(String),
          }),
          // No key: no account, the route still named.
          expect.objectContaining({ msg: 'request', accountId: null, route: '/customers/{externalKey}', status: 401 }),
        ]),
      );
      const all = lines.join('\n');
      expect(all).not.toContain(apiKey);
      expect(all).not.toContain('Secretive Person');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
