import type { Api } from '../../src/http/api';
import { createApp } from '../../src/app';
import { apiClient, startTestApp, type TestApp } from '../support/harness';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { contractProblems } from '../support/response-contract';
import { createChecker, operationsOf } from '../fuzz/openapi-model';
import { WEBHOOK_EVENTS } from '../../src/webhooks/event-catalog';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

/** Every (method, path) the API router serves, in OpenAPI path syntax. */
function servedRoutes(): string[] {
  const api = createApp({ prisma: app.prisma, temporal: app.temporal }).locals.api as Api;
  const served = api.servedOperations().sort();
  // The routers are Express's own: what they serve is read from their layers, not from the registry.
  expect(served.length).toBeGreaterThan(100);
  return served;
}

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document served without a key', async () => {
    const response = await apiClient(app.baseUrl).get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'cc-api-key',
    });
  });

  it('documents every route the server serves, and nothing it does not', async () => {
    const document = (await apiClient(app.baseUrl).get('/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`))
      .filter((route) => !['get /health', 'get /openapi.json', 'get /docs', 'get /metrics'].includes(route))
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
    expect(
      await contractProblems(app.baseUrl, 'GET', '/customers/cus_x?expand=1', {
        status: 200,
        contentType: 'application/json',
        body: customer,
      }),
    ).not.toEqual([]);
    expect(
      await contractProblems(app.baseUrl, 'GET', '/customers/cus_x', {
        status: 418,
        contentType: 'application/json',
        body: {},
      }),
    ).toEqual([expect.stringContaining('undocumented status 418')]);
    const notFound = {
      error: { type: 'not_found', code: 'resource_missing', message: "No such customer: 'cus_x'", param: 'id' },
    };
    expect(
      await contractProblems(app.baseUrl, 'GET', '/customers/cus_x', {
        status: 404,
        contentType: 'application/json; charset=utf-8',
        body: notFound,
      }),
    ).toEqual([]);
  });

  it("flags a file answered with a Content-Type its operation does not document; a caught email's attachment documents any type", async () => {
    const invoicePdf = '/invoices/00000000-0000-4000-8000-000000000000/pdf';
    const file = (contentType: string) => ({ status: 200, contentType, body: '%PDF-1.7' });
    expect(await contractProblems(app.baseUrl, 'GET', invoicePdf, file('application/pdf'))).toEqual([]);
    expect(await contractProblems(app.baseUrl, 'GET', invoicePdf, file('text/html; charset=utf-8'))).toEqual([
      'content type text/html; charset=utf-8, not the documented application/pdf',
    ]);
    // Its own type, whatever the email attached (docs/api.md, "Emails").
    const attachment = '/test-helpers/emails/msg_1/attachments/0';
    for (const type of ['application/pdf', 'text/calendar; charset=utf-8', 'application/octet-stream'])
      expect(await contractProblems(app.baseUrl, 'GET', attachment, file(type))).toEqual([]);
    const document = (await apiClient(app.baseUrl).get('/openapi.json')).body;
    expect(
      Object.keys(document.paths['/test-helpers/emails/{id}/attachments/{index}'].get.responses['200'].content),
    ).toEqual(['*/*']);
  });
});

describe('completeness of the document', () => {
  let document: any;
  beforeAll(async () => {
    document = (await apiClient(app.baseUrl).get('/openapi.json')).body;
  });
  const operations = () =>
    [document.paths, document.webhooks].flatMap((items) =>
      Object.entries(items as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
      ),
    );

  it('gives every operation and webhook a unique operationId', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/customers/{externalKey}'].get.operationId).toBe('getCustomersByExternalKey');
  });

  it('marks a request body required unless the operation accepts none', () => {
    expect(document.paths['/customers'].post.requestBody.required).toBe(true);
    expect(document.paths['/customers/{externalKey}'].patch.requestBody.required).toBe(false);
    expect(document.paths['/subscriptions/{id}/pause'].post.requestBody.required).toBe(false);
  });

  it('has an example on every JSON request and response body, each valid against its schema', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ ...document, $id: 'doc' });
    const check = createChecker(document);
    const byKey = new Map(
      operationsOf(document).map((operation) => [`${operation.method} ${operation.path}`, operation]),
    );
    const problems: string[] = [];
    let examples = 0;
    for (const { path, method, operation } of operations()) {
      const kind = document.paths[path] ? 'paths' : 'webhooks';
      const body = operation.requestBody?.content?.['application/json'];
      if (body) {
        examples += 1;
        const validate = ajv.getSchema(
          `doc#/${kind}/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/requestBody/content/application~1json/schema`,
        )!;
        if (body.example === undefined) problems.push(`${method} ${path}: request body without example`);
        else if (!validate(body.example))
          problems.push(`${method} ${path}: request example: ${ajv.errorsText(validate.errors)}`);
      }
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        const media = response.content?.['application/json'];
        if (!media) continue;
        examples += 1;
        if (media.example === undefined) problems.push(`${method} ${path} ${status}: no example`);
        else if (kind === 'paths') {
          const answer = { status: Number(status), contentType: 'application/json', body: media.example };
          problems.push(
            ...check(byKey.get(`${method.toUpperCase()} ${path}`)!, answer)
              .filter((problem) => !problem.startsWith('server error'))
              .map((problem) => `${method} ${path} ${status}: ${problem}`),
          );
        }
      }
    }
    expect(problems).toEqual([]);
    expect(examples).toBeGreaterThan(500);
  });

  it('types every `created` as an integer', () => {
    const found: unknown[] = [];
    const walk = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'created' && value && typeof value === 'object' && 'type' in value)
          found.push((value as { type: unknown }).type);
        walk(value);
      }
    };
    walk(document.components.schemas);
    expect(found.length).toBeGreaterThan(10);
    expect(new Set(found)).toEqual(new Set(['integer']));
  });

  it('states the server-side rules: ISO codes and tax codes as enums, ascending retry_days, either-or shapes as oneOf', () => {
    const schemas = document.components.schemas;
    const enumOf = (name: string) => schemas[name].enum as string[];
    expect(enumOf('CurrencyCodeInput')).toEqual(expect.arrayContaining(['USD', 'usd', 'EUR', 'eur']));
    expect(enumOf('CurrencyCodeInput')).not.toContain('Usd');
    expect(enumOf('CurrencyCode')).toEqual(enumOf('CurrencyCode').map((code) => code.toUpperCase()));
    expect(enumOf('CountryCodeInput')).toEqual(expect.arrayContaining(['US', 'us', 'FR', 'fr']));
    expect(enumOf('TaxCode')).toHaveLength(637);
    expect(schemas.ProductCreate.properties.tax_code.anyOf).toEqual([
      { $ref: '#/components/schemas/TaxCode' },
      { type: 'null' },
    ]);
    expect(schemas.Product.properties.tax_code).toEqual({ $ref: '#/components/schemas/TaxCode' });
    expect(schemas.CustomerCreate.properties.currency).toEqual({ $ref: '#/components/schemas/CurrencyCodeInput' });
    expect(schemas.Customer.properties.currency).toEqual({ $ref: '#/components/schemas/CurrencyCode' });
    expect(schemas.Customer.required).not.toContain('currency');
    expect(schemas.Address.properties.country).toEqual({ $ref: '#/components/schemas/CountryCode' });
    expect(schemas.PriceCreate.properties.currency.enum).toEqual(['USD', 'usd']);
    const retryDays = schemas.DunningSettingsUpdate.properties.retry_days;
    expect(retryDays).toMatchObject({ uniqueItems: true, description: expect.stringContaining('strictly ascending') });
    expect(schemas.InvoiceCreate.properties.lines.items.oneOf).toEqual([
      { $ref: '#/components/schemas/InvoiceLineAmountInput' },
      { $ref: '#/components/schemas/InvoiceLinePriceInput' },
    ]);
    expect(schemas.PaymentPlanPaymentCreate.oneOf).toHaveLength(4);
    expect(schemas.TerminalPaymentResolve.oneOf).toHaveLength(3);
    expect(schemas.PaymentMethodCreate.oneOf).toHaveLength(2);
  });

  it('documents every webhook event with its payload schema and the cc-signature header', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...WEBHOOK_EVENTS.keys()].sort());
    expect(Object.keys(document.webhooks)).toEqual(
      expect.arrayContaining([
        'customer.created',
        'invoice.payment_failed',
        'subscription.canceled',
        'payment_plan.completed',
      ]),
    );
    for (const [type, item] of Object.entries(document.webhooks as Record<string, any>)) {
      const header = item.post.parameters.find((parameter: { name: string }) => parameter.name === 'cc-signature');
      expect({ type, in: header?.in, required: header?.required }).toEqual({ type, in: 'header', required: true });
      const schema = item.post.requestBody.content['application/json'].schema;
      expect(schema.properties.event.enum ?? [schema.properties.event.const]).toEqual([type]);
      expect(schema.properties.data.$ref).toMatch(/^#\/components\/schemas\//);
      expect(document.components.schemas[schema.properties.data.$ref.split('/').pop()]).toBeDefined();
    }
  });
});
