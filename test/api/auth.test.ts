import { apiClient, createTestAccount, startTestApp, type TestApp } from '../support/harness';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('authentication', () => {
  it.each([
    ['GET', '/customers'],
    ['POST', '/customers'],
    ['GET', '/customers/search?search=a'],
    ['GET', '/customers/cus_abc'],
    ['PATCH', '/customers/cus_abc'],
    ['DELETE', '/customers/cus_abc'],
    ['GET', '/customers/cus_abc/payment-methods'],
  ])('%s %s without a key is 401 with the error body', async (method, path) => {
    const response = await apiClient(app.baseUrl).request(
      method,
      path,
      method === 'GET' || method === 'DELETE' ? undefined : {},
    );
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      error: { type: 'authentication_error', code: 'api_key_missing', message: expect.stringContaining('cc-api-key') },
    });
  });

  it('an unknown key is 401', async () => {
    const response = await apiClient(app.baseUrl, 'sk_test_unknown').get('/customers');
    expect(response.status).toBe(401);
    expect(response.body.error).toMatchObject({ type: 'authentication_error', code: 'api_key_invalid' });
  });

  it('stores only a hash of the key', async () => {
    const account = await createTestAccount(app.prisma);
    const keys = await app.prisma.apiKey.findMany({ where: { accountId: account.accountId } });
    expect(keys).toHaveLength(1);
    expect(JSON.stringify(keys)).not.toContain(account.apiKey);
    expect(keys[0]!.keyHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('unknown routes are 404 with the error body', async () => {
    const response = await apiClient(app.baseUrl).get('/nope');
    expect(response.status).toBe(404);
    expect(response.body.error.type).toBe('not_found');
  });
});
