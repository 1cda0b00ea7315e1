import express from 'express';
import type { Api } from '../../src/http/api';
import { answeredByApiAlone, createApp } from '../../src/app';
import { apiClient, startTestApp, type TestApp } from '../support/harness';

/**
 * A request only the API's routes answer goes to them before any other router (docs/performance.md, "Reads, third
 * pass"). A router mounted outside the API under a path whose first segment the API also serves would then never be
 * reached: every path the app mounts outside the API must be one the early dispatch lets through.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const MOUNTING_METHODS = ['use', 'get', 'post', 'put', 'patch', 'delete', 'all'] as const;

/** The paths given to the app's own `use`, `get`, `post`... while it is made (not the API's routers' paths). */
function pathsMountedOnTheApp(): { api: Api; paths: string[] } {
  const paths: string[] = [];
  const application = express.application as unknown as Record<string, (...args: unknown[]) => unknown>;
  const spies = MOUNTING_METHODS.map((method) => {
    const original = application[method]!;
    return jest.spyOn(application, method).mockImplementation(function (this: unknown, ...args: unknown[]) {
      // `app.get(name)` with one argument reads a setting; a mount has a path and a handler.
      const first = args[0];
      if (args.length > 1 && (typeof first === 'string' || Array.isArray(first)))
        paths.push(...(Array.isArray(first) ? first : [first]).filter((p): p is string => typeof p === 'string'));
      return original.apply(this, args);
    });
  });
  try {
    const made = createApp({ prisma: app.prisma, temporal: app.temporal });
    return { api: made.locals.api as Api, paths };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

describe('routers mounted outside the API', () => {
  it('are all under paths the early dispatch to the API lets through', () => {
    const { api, paths } = pathsMountedOnTheApp();
    // The operations endpoints and the sign-in, reset, join, codec and processors' webhook routers at least.
    expect(paths).toEqual(expect.arrayContaining(['/health', '/metrics', '/openapi.json', '/docs']));
    expect(paths.length).toBeGreaterThanOrEqual(8);
    const shadowed = paths.filter((path) => answeredByApiAlone(api, path));
    expect(shadowed).toEqual([]);
    // The pages' routers are entered by their segment (not a mount path): they too are let through.
    expect(['/docs', '/dashboard', '/hosted/x'].filter((path) => answeredByApiAlone(api, path))).toEqual([]);
    // And the API's own paths are dispatched early.
    expect(answeredByApiAlone(api, '/customers')).toBe(true);
    expect(answeredByApiAlone(api, '/Invoices/in_1')).toBe(true);
  });

  it('answer their own requests, not the API 404', async () => {
    const health = await apiClient(app.baseUrl).get('/health');
    expect(health.status).not.toBe(404);
    expect(health.body.status).toBeDefined();
    const docs = await fetch(`${app.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/html/);
  });
});
