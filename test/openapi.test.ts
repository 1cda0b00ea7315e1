import type { Api } from '../src/http/api';
import { createApp } from '../src/app';
import { apiClient, startTestApp, type TestApp } from './support/harness';
import { contractProblems } from './support/response-contract';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

/** Every (method, path) the API router serves, in OpenAPI path syntax. */
function servedRoutes(): string[] {
  const api = createApp({ prisma: app.prisma, temporal: app.temporal }).locals.api as Api;
  return api.router.stack
    .filter((layer) => layer.route)
    .flatMap((layer) => {
      const route = layer.route as unknown as { path: string; methods: Record<string, boolean> };
      return Object.keys(route.methods).map((method) => `${method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
    })
    .sort();
}

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document served without a key', async () => {
    const response = await apiClient(app.baseUrl).get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'cc-api-key' });
  });

  it('documents every route the server serves, and nothing it does not', async () => {
    const document = (await apiClient(app.baseUrl).get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(document.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`))
      .filter((route) => !['get /health', 'get /openapi.json', 'get /docs'].includes(route))
      .sort();
    expect(documented).toEqual(servedRoutes());
    expect(document.paths['/health']).toBeDefined();
  });

  it('describes request bodies, query parameters and errors from the validating schemas', async () => {
    const document = (await apiClient(app.baseUrl).get('/openapi.json')).body;
    const create = document.paths['/customers'].post;
    const body = create.requestBody.content['application/json'].schema;
    const resolved = body.$ref ? document.components.schemas[body.$ref.split('/').pop()] : body;
    expect(resolved.required).toEqual(['name']);
    expect(resolved.additionalProperties).toBe(false);
    expect(create.responses['201']).toBeDefined();
    expect(create.responses['400']).toBeDefined();
    const list = document.paths['/customers'].get;
    expect(list.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(['search', 'page', 'take', 'order', 'sortingField']),
    );
  });
});

describe('the response contract every test client checks', () => {
  it('flags an answer whose status or body is not what the operation documents, and passes one that is', async () => {
    const customer = { id: 'cus_000000000000000000000000', object: 'customer' };
    expect(await contractProblems(app.baseUrl, 'GET', '/customers/cus_x?expand=1', { status: 200, contentType: 'application/json', body: customer })).not.toEqual([]);
    expect(await contractProblems(app.baseUrl, 'GET', '/customers/cus_x', { status: 418, contentType: 'application/json', body: {} })).toEqual([
      expect.stringContaining('undocumented status 418'),
    ]);
    const notFound = { error: { type: 'not_found', code: 'resource_missing', message: "No such customer: 'cus_x'", param: 'id' } };
    expect(await contractProblems(app.baseUrl, 'GET', '/customers/cus_x', { status: 404, contentType: 'application/json; charset=utf-8', body: notFound })).toEqual([]);
  });
});
