import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '../src/config';
import { BUILT_IN_SECRETS, newEncryptionKey, productionProblems } from '../src/lib/secrets';
import { apiClient, createTestAccount, startTestApp, type ApiClient, type TestApp } from './support/harness';

// Issue 16: secrets at rest, key lifecycle, rate limits, production fail-fast, headers.

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

let app: TestApp;
let api: ApiClient;
beforeAll(async () => {
  app = await startTestApp();
  api = apiClient(app.baseUrl, (await createTestAccount(app.prisma)).apiKey);
});
afterAll(() => app.close());

const productionSecrets = {
  PAYMENT_FINGERPRINT_SECRET: 'a-real-fingerprint-secret',
  IDEMPOTENCY_HASH_SECRET: 'a-real-idempotency-secret',
  SECRETS_ENCRYPTION_KEY: newEncryptionKey(),
};

describe('item 4: production fail-fast', () => {
  it('lists every missing or default secret, and a malformed encryption key; nothing outside production', () => {
    expect(productionProblems({})).toEqual([]);
    expect(productionProblems({ NODE_ENV: 'production', ...productionSecrets })).toEqual([]);
    expect(productionProblems({ NODE_ENV: 'production' })).toEqual([
      'PAYMENT_FINGERPRINT_SECRET is not set',
      'IDEMPOTENCY_HASH_SECRET is not set',
      'SECRETS_ENCRYPTION_KEY is not set',
    ]);
    expect(productionProblems({ NODE_ENV: 'production', ...productionSecrets, IDEMPOTENCY_HASH_SECRET: BUILT_IN_SECRETS.IDEMPOTENCY_HASH_SECRET })).toEqual([
      'IDEMPOTENCY_HASH_SECRET is the built-in development default',
    ]);
    expect(productionProblems({ NODE_ENV: 'production', ...productionSecrets, SECRETS_ENCRYPTION_KEY: 'short' })).toEqual([
      'SECRETS_ENCRYPTION_KEY is not 32 bytes in base64 (openssl rand -base64 32)',
    ]);
  });

  it.each(['api.ts', 'worker.ts'])('%s exits non-zero with one clear line when a secret is missing', async (script) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...productionSecrets, NODE_ENV: 'production', DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' };
    delete env.PAYMENT_FINGERPRINT_SECRET;
    const failure = await run(tsx, [path.join(projectRoot, 'src', 'cli', script)], { cwd: projectRoot, env }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    const lines = failure!.stderr.trim().split('\n');
    expect(lines).toEqual([expect.stringMatching(/refuses to start with NODE_ENV=production: PAYMENT_FINGERPRINT_SECRET is not set$/)]);
  });
});

describe('item 6: headers', () => {
  it('security headers on success and error answers, no x-powered-by, no CORS headers', async () => {
    for (const response of [await api.get('/customers'), await api.get('/nowhere'), await apiClient(app.baseUrl).get('/customers')]) {
      expect(response.headers.get('x-powered-by')).toBeNull();
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('strict-transport-security')).toMatch(/max-age=/);
      expect(response.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
      expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
    const preflight = await fetch(`${app.baseUrl}/customers`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
  });
});
