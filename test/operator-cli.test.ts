import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '../src/config';
import { apiClient, startTestApp, type TestApp } from './support/harness';

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

function cli(script: string, args: string[], env: NodeJS.ProcessEnv) {
  return run(tsx, [path.join(projectRoot, 'src', 'cli', script), ...args], { cwd: projectRoot, env: { ...process.env, ...env } });
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('account:create and key:create', () => {
  it('creates an account and a usable key, printed once as JSON', async () => {
    const { stdout } = await cli('account-create.ts', ['--name', 'Acme', '--role', 'standard', '--payment-plans', '--json'], {
      DATABASE_URL: process.env.DATABASE_URL,
    });
    const created = JSON.parse(stdout);
    expect(created).toMatchObject({ account_id: expect.stringMatching(/^acct_/), api_key: expect.stringMatching(/^sk_test_/), role: 'standard', payment_plans: true });
    const account = await app.prisma.account.findUniqueOrThrow({ where: { id: created.account_id } });
    expect(account).toMatchObject({ name: 'Acme', paymentPlansEnabled: true });
    expect((await apiClient(app.baseUrl, created.api_key).get('/customers')).status).toBe(200);

    const key = JSON.parse((await cli('key-create.ts', ['--account', created.account_id, '--role', 'superadmin', '--json'], {
      DATABASE_URL: process.env.DATABASE_URL,
    })).stdout);
    expect(key).toMatchObject({ account_id: created.account_id, role: 'superadmin' });
    expect(key.api_key).not.toBe(created.api_key);
    expect((await apiClient(app.baseUrl, key.api_key).get('/customers')).status).toBe(200);
  });

  it('defaults to the developer role and refuses bad arguments', async () => {
    const created = JSON.parse((await cli('account-create.ts', ['--name', 'Dev Co', '--json'], { DATABASE_URL: process.env.DATABASE_URL })).stdout);
    expect(created.role).toBe('developer');
    await expect(cli('account-create.ts', ['--json'], { DATABASE_URL: process.env.DATABASE_URL })).rejects.toMatchObject({ code: 2 });
    await expect(cli('account-create.ts', ['--name', 'X', '--role', 'root'], { DATABASE_URL: process.env.DATABASE_URL })).rejects.toMatchObject({ code: 2 });
    await expect(cli('key-create.ts', ['--account', 'acct_nope'], { DATABASE_URL: process.env.DATABASE_URL })).rejects.toMatchObject({ code: 2 });
  });

  it('reaches the embedded cluster that is already running on the data folder instead of starting another', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-data-'));
    fs.chmodSync(dataDir, 0o777);
    const port = 20000 + Math.floor(Math.random() * 20000);
    const server = spawn(tsx, [path.join(projectRoot, 'test', 'support', 'embedded-postgres-process.ts'), path.join(dataDir, 'postgres'), String(port)]);
    const running = await new Promise<{ url: string }>((resolve, reject) => {
      server.stdout.once('data', (chunk) => resolve(JSON.parse(String(chunk))));
      server.once('exit', (code) => reject(new Error(`cluster process exited ${code}`)));
    });
    try {
      // Another port for the CLI: if it started a second cluster it would listen there, not on `port`.
      const env = { DATABASE_URL: '', DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port + 1) };
      const created = JSON.parse((await cli('account-create.ts', ['--name', 'Embedded', '--json'], env)).stdout);
      const { Client } = await import('pg');
      const client = new Client({ connectionString: running.url });
      await client.connect();
      const rows = await client.query('SELECT name FROM accounts WHERE id = $1', [created.account_id]);
      await client.end();
      expect(rows.rows).toEqual([{ name: 'Embedded' }]);
    } finally {
      await new Promise((resolve) => {
        server.once('exit', resolve);
        server.kill('SIGTERM');
      });
    }
  });
});
