import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { config, projectRoot } from '../../src/config';
import { BUILT_IN_SECRETS, newEncryptionKey, productionProblems } from '../../src/lib/secrets';
import { createRateLimiter, rateLimitSettingsFromConfig } from '../../src/http/rate-limit';
import { AUTH_CACHE_MS } from '../../src/http/auth';
import { sendWebhook } from '../../src/webhooks/sender';
import { allowPrivateWebhookTargets, waitUntil } from '../support/webhooks';
import { apiClient, createTestAccount, startTestApp, type ApiClient, type TestApp } from '../support/harness';
import { createApp } from '../../src/app';

// Secrets at rest, key lifecycle, rate limits, production fail-fast, headers.

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
    expect(
      productionProblems({
        NODE_ENV: 'production',
        ...productionSecrets,
        IDEMPOTENCY_HASH_SECRET: BUILT_IN_SECRETS.IDEMPOTENCY_HASH_SECRET,
      }),
    ).toEqual(['IDEMPOTENCY_HASH_SECRET is the built-in development default']);
    expect(
      productionProblems({ NODE_ENV: 'production', ...productionSecrets, SECRETS_ENCRYPTION_KEY: 'short' }),
    ).toEqual(['SECRETS_ENCRYPTION_KEY is not 32 bytes in base64 (openssl rand -base64 32)']);
  });

  it.each(['api.ts', 'worker.ts'])('%s exits non-zero with one clear line when a secret is missing', async (script) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...productionSecrets,
      NODE_ENV: 'production',
      DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none',
    };
    delete env.PAYMENT_FINGERPRINT_SECRET;
    const failure = await run(tsx, [path.join(projectRoot, 'src', 'cli', script)], { cwd: projectRoot, env }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    const lines = failure!.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/refuses to start with NODE_ENV=production: PAYMENT_FINGERPRINT_SECRET is not set$/),
    ]);
  });
});

function cli(script: string, args: string[]) {
  return run(tsx, [path.join(projectRoot, 'src', 'cli', script), ...args], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL },
  });
}

describe('item 2: API key lifecycle', () => {
  it('key:list shows keys without the secret and with last_used_at; key:rotate overlaps; key:revoke answers 401 after the auth cache', async () => {
    const shortCache = await startTestApp({ authCacheMs: 300 });
    try {
      const account = await createTestAccount(shortCache.prisma);
      const other = await createTestAccount(shortCache.prisma, { name: 'Other' });
      const oldClient = apiClient(shortCache.baseUrl, account.apiKey);
      const before = Date.now();
      expect((await oldClient.get('/customers')).status).toBe(200);

      const listed = await cli('key-list.ts', ['--account', account.accountId, '--json']);
      expect(listed.stdout).not.toContain(account.apiKey);
      const [oldKey] = JSON.parse(listed.stdout);
      expect(JSON.parse(listed.stdout)).toHaveLength(1); // the other account's key is not listed
      expect(oldKey).toMatchObject({
        key_prefix: account.apiKey.slice(0, 12),
        role: 'developer',
        status: 'active',
        expires_at: null,
      });
      expect(Date.parse(oldKey.last_used_at)).toBeGreaterThanOrEqual(before - 1000);

      const rotated = JSON.parse(
        (await cli('key-revoke.ts', ['rotate', '--key', oldKey.key_id, '--overlap-hours', '1', '--json'])).stdout,
      );
      expect(rotated).toMatchObject({
        account_id: account.accountId,
        role: 'developer',
        api_key: expect.stringMatching(/^sk_test_/),
      });
      expect(Date.parse(rotated.old_key_expires_at) - Date.now()).toBeGreaterThan(3_500_000);
      const newClient = apiClient(shortCache.baseUrl, rotated.api_key);
      expect((await newClient.get('/customers')).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect((await oldClient.get('/customers')).status).toBe(200); // the overlap
      const statuses = JSON.parse((await cli('key-list.ts', ['--account', account.accountId, '--json'])).stdout).map(
        (key: { status: string }) => key.status,
      );
      expect(statuses).toEqual(['active', 'expiring']);

      const revoked = await cli('key-revoke.ts', ['revoke', '--key', oldKey.key_id]);
      expect(revoked.stdout).toMatch(
        /revoked( by \S+)?; running API processes refuse it at once \(within 30 s at most\)/,
      );
      await new Promise((resolve) => setTimeout(resolve, 400));
      const refused = await oldClient.get('/customers');
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({ type: 'authentication_error', code: 'api_key_invalid' });
      expect((await newClient.get('/customers')).status).toBe(200);
      expect((await apiClient(shortCache.baseUrl, other.apiKey).get('/customers')).status).toBe(200);

      // A key revoked before any API process cached it is refused at once, on the default 30 s cache too.
      const rotatedAgain = JSON.parse(
        (await cli('key-revoke.ts', ['rotate', '--key', rotated.key_id, '--overlap-hours', '0', '--json'])).stdout,
      );
      expect((await apiClient(app.baseUrl, rotated.api_key).get('/customers')).status).toBe(401);
      expect((await apiClient(app.baseUrl, rotatedAgain.api_key).get('/customers')).status).toBe(200);

      const failure = await cli('key-revoke.ts', ['revoke', '--key', 'key_unknown']).catch(
        (error: { code: number; stderr: string }) => error,
      );
      // Exit codes (docs/operations.md): an unknown key is a refusal (1), not bad usage (2).
      expect(failure).toMatchObject({ code: 1, stderr: expect.stringContaining('No such key: key_unknown') });
    } finally {
      await shortCache.close();
    }
  });
});

describe('item 2: a key ended in one API process is refused by the others at once', () => {
  it('hears the end announced by PostgreSQL, and forgets every key after a lost announcement', async () => {
    const other = await startTestApp(); // the default 30 s cache
    try {
      const account = await createTestAccount(app.prisma, { name: 'Ends' });
      const developer = apiClient(app.baseUrl, account.apiKey);
      const issue = async () => {
        const created = await developer.post('/api-keys', { role: 'standard' });
        expect(created.status).toBe(201);
        return { id: created.body.id as string, client: apiClient(other.baseUrl, created.body.secret) };
      };
      const refusedWithin = (client: ApiClient) =>
        waitUntil(async () => (await client.get('/customers')).status === 401, 10_000, 50);
      const trusted = async (client: ApiClient) => expect((await client.get('/customers')).status).toBe(200);

      // Revoked through the first process: the second, which trusted the key, refuses it long before its 30 s.
      const revoked = await issue();
      await trusted(revoked.client);
      const revokedAt = Date.now();
      expect((await developer.post(`/api-keys/${revoked.id}/revoke`)).status).toBe(200);
      await refusedWithin(revoked.client);
      expect(Date.now() - revokedAt).toBeLessThan(AUTH_CACHE_MS / 3);

      // Ended while nobody listened (the listeners' connections cut in the transaction that ends it, so its
      // announcement is sent to none): a listener that connects again forgets every key it trusted.
      const missed = await issue();
      const kept = await issue();
      await trusted(missed.client);
      await trusted(kept.client);
      const stampOf = async (id: string) =>
        (await app.prisma.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt?.getTime();
      const keptStamp = await stampOf(kept.id);
      const cutAt = Date.now();
      await app.prisma.$transaction(async (tx) => {
        await tx.apiKey.update({ where: { id: missed.id }, data: { expiresAt: new Date() } });
        await tx.$queryRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN api_key_ends'`;
      });
      await refusedWithin(missed.client);
      expect(Date.now() - cutAt).toBeLessThan(AUTH_CACHE_MS / 3);
      // The key still live was looked up again (its stamp moved), and still works.
      await trusted(kept.client);
      expect(await stampOf(kept.id)).toBeGreaterThan(keptStamp!);
    } finally {
      await other.close();
    }
  });
});

describe('item 6: headers', () => {
  it('security headers on success and error answers, no x-powered-by, no CORS headers', async () => {
    for (const response of [
      await api.get('/customers'),
      await api.get('/nowhere'),
      await apiClient(app.baseUrl).get('/customers'),
    ]) {
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

describe('item 3: rate limits per API key', () => {
  /**
   * Fires `count` requests at once and counts the answers. `page=0` is refused (400) after the limit is
   * counted and before any query, so a burst is quick.
   */
  async function burst(client: ApiClient, count: number) {
    const responses = await Promise.all(Array.from({ length: count }, () => client.get('/customers?page=0')));
    const limited = responses.filter((response) => response.status === 429);
    expect(responses.length - limited.length).toBe(responses.filter((response) => response.status === 400).length);
    return { ok: responses.length - limited.length, limited };
  }

  it('defaults to 100 per second plus 50 per 10 s per key, over all API processes', async () => {
    const saved = process.env.RATE_LIMIT_PER_SECOND;
    delete process.env.RATE_LIMIT_PER_SECOND;
    const defaults = rateLimitSettingsFromConfig();
    process.env.RATE_LIMIT_PER_SECOND = saved;
    expect(defaults).toEqual({ perSecond: 100, burst: 50, processes: 1 });
    // In memory, 200 tries take a few milliseconds: 150 pass, unless the second turned meanwhile.
    const limit = createRateLimiter(defaults);
    let passed = 0;
    for (let i = 0; i < 200; i += 1)
      passed += await limit('key_a').then(
        () => 1,
        () => 0,
      );
    expect(passed).toBeGreaterThanOrEqual(150);
    expect(passed).toBeLessThan(200);
    await expect(limit('key_b')).resolves.toBeUndefined();
  });

  it('answers 429 with Retry-After and the JSON error once a key is spent; another key is not affected', async () => {
    const limitedApp = await startTestApp({ rateLimit: { perSecond: 5, burst: 3, processes: 1 } });
    try {
      const client = apiClient(limitedApp.baseUrl, (await createTestAccount(limitedApp.prisma)).apiKey);
      await client.get('/customers?page=0'); // looks the key up once, so the burst runs from the auth cache
      const { ok, limited } = await burst(client, 20);
      // A spent key is refused on a real request too, before any work is done.
      expect((await client.post('/customers', { name: 'Throttled' })).status).toBe(429);
      expect(await limitedApp.prisma.customer.count({ where: { name: 'Throttled' } })).toBe(0);
      expect(ok).toBeLessThanOrEqual(8 - 1 + 5); // the steady bucket may refill once during the burst
      expect(limited.length).toBeGreaterThan(0);
      const refused = limited[0]!;
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(refused.body).toEqual({
        error: { type: 'invalid_request_error', code: 'rate_limit', message: expect.any(String) },
      });
      expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
      const other = apiClient(
        limitedApp.baseUrl,
        (await createTestAccount(limitedApp.prisma, { name: 'Other' })).apiKey,
      );
      expect((await other.get('/customers')).status).toBe(200);
    } finally {
      await limitedApp.close();
    }
  });

  it('is divided between API processes, refills, and is documented as 429 on every operation', async () => {
    const limitedApp = await startTestApp({ rateLimit: { perSecond: 10, burst: 4, processes: 2 } });
    try {
      const client = apiClient(limitedApp.baseUrl, (await createTestAccount(limitedApp.prisma)).apiKey);
      // 10/2 + 4/2 in this process (a second turning during the burst may let the steady 5 again).
      expect((await burst(client, 14)).ok).toBeGreaterThanOrEqual(7);
      expect((await burst(client, 14)).ok).toBeLessThanOrEqual(5);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const refilled = (await burst(client, 8)).ok; // the steady bucket refilled; the burst is spent for 10 s
      expect(refilled).toBeGreaterThanOrEqual(5);
      expect(refilled).toBeLessThan(8);
      const document = (await client.get('/openapi.json')).body as {
        paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
      };
      for (const operations of Object.values(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (method === 'get' && !('401' in operation.responses)) continue; // /health, /openapi.json: no key, no limit
          expect(operation.responses['429']?.headers).toHaveProperty('Retry-After');
        }
      }
    } finally {
      await limitedApp.close();
    }
  });
});

describe('failed authentications per client address', () => {
  it('answers 429 to an address that keeps sending invalid keys, before any key lookup; a key found valid before still works', async () => {
    // A 1 ms key cache: the known key is looked up again each time, so the test shows it is not held up.
    const limitedApp = await startTestApp({ authFailuresPerMinute: 5, authCacheMs: 1 });
    try {
      const known = apiClient(limitedApp.baseUrl, (await createTestAccount(limitedApp.prisma)).apiKey);
      expect((await known.get('/customers')).status).toBe(200); // found valid once by this process
      const guesses = [];
      for (let i = 0; i < 5; i += 1)
        guesses.push((await apiClient(limitedApp.baseUrl, `sk_test_guess${i}`).get('/customers')).status);
      expect(guesses).toEqual([401, 401, 401, 401, 401]);
      const refused = await apiClient(limitedApp.baseUrl, 'sk_test_guess_more').get('/customers');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(refused.body).toEqual({
        error: {
          type: 'invalid_request_error',
          code: 'rate_limit',
          message: expect.stringContaining('invalid API keys'),
        },
      });
      // A valid key this process has not seen yet waits too (it would cost a lookup); one it has found valid does not.
      const unseen = apiClient(
        limitedApp.baseUrl,
        (await createTestAccount(limitedApp.prisma, { name: 'Unseen' })).apiKey,
      );
      expect((await unseen.get('/customers')).status).toBe(429);
      expect((await known.get('/customers')).status).toBe(200);
      // A missing key costs no lookup and is not counted: still 401.
      expect((await apiClient(limitedApp.baseUrl).get('/customers')).status).toBe(401);
    } finally {
      await limitedApp.close();
    }
  });

  it('behind a proxy (TRUST_PROXY) counts by the client address it forwards; without it, by the socket', async () => {
    const guess = (app: TestApp, client: string) =>
      apiClient(app.baseUrl, 'sk_test_guess').get('/customers', { 'x-forwarded-for': client });
    const proxied = await startTestApp({ authFailuresPerMinute: 2, trustProxy: 'loopback' });
    try {
      const first = [await guess(proxied, '203.0.113.5'), await guess(proxied, '203.0.113.5')];
      expect(first.map((answer) => answer.status)).toEqual([401, 401]);
      expect((await guess(proxied, '203.0.113.5')).status).toBe(429);
      // Another client behind the same proxy is not held up by the first one's guesses.
      expect((await guess(proxied, '198.51.100.7')).status).toBe(401);
    } finally {
      await proxied.close();
    }
    // Unset, a forwarded address is not believed: every request counts for the socket's address.
    const direct = await startTestApp({ authFailuresPerMinute: 2 });
    try {
      await guess(direct, '203.0.113.5');
      await guess(direct, '203.0.113.5');
      expect((await guess(direct, '198.51.100.7')).status).toBe(429);
    } finally {
      await direct.close();
    }
  });

  it('reads TRUST_PROXY as Express does: unset or false none, a number of hops, or addresses', () => {
    const saved = process.env.TRUST_PROXY;
    try {
      const read = (value: string | undefined) => {
        if (value === undefined) delete process.env.TRUST_PROXY;
        else process.env.TRUST_PROXY = value;
        return config.trustProxy;
      };
      // A value Express cannot read stops the API at its start, naming the variable.
      process.env.TRUST_PROXY = 'not-an-address';
      expect(() => createApp({ prisma: app.prisma, temporal: app.temporal })).toThrow(
        /^TRUST_PROXY must be a number of hops .*: invalid IP address: not-an-address$/,
      );
      expect([read(undefined), read(''), read('false'), read('1'), read(' loopback, 10.0.0.0/8 ')]).toEqual([
        false,
        false,
        false,
        1,
        'loopback, 10.0.0.0/8',
      ]);
    } finally {
      if (saved === undefined) delete process.env.TRUST_PROXY;
      else process.env.TRUST_PROXY = saved;
    }
  });

  it('defaults to 60 failed authentications per minute', () => {
    const saved = process.env.AUTH_FAILURES_PER_MINUTE;
    delete process.env.AUTH_FAILURES_PER_MINUTE;
    try {
      expect(config.authFailuresPerMinute).toBe(60);
    } finally {
      process.env.AUTH_FAILURES_PER_MINUTE = saved;
    }
  });
});

describe('item 5: outbound webhooks', () => {
  it('reads at most 64 KB of an answer, then closes the connection; the status still counts', async () => {
    allowPrivateWebhookTargets();
    let written = 0;
    let closed = false;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!closed && written < 512 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', () => (closed = true));
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const result = await sendWebhook(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        '{}',
        {},
        5_000,
      );
      expect(result).toMatchObject({ outcome: 'success', statusCode: 200, error: null });
      await waitUntil(async () => closed, 5_000);
      expect(written).toBeLessThan(16 * 1024 * 1024); // far from the 512 MB the receiver would have sent
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
