import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/config';
import { freePortBlock } from '../../src/runtime/ports';
import { apiClient, startTestApp, type TestApp } from '../support/harness';

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

function cli(script: string, args: string[], env: NodeJS.ProcessEnv) {
  return run(tsx, [path.join(projectRoot, 'src', 'cli', script), ...args], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
  });
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('account:create and key:create', () => {
  it('creates an account and a usable key, printed once as JSON', async () => {
    const { stdout } = await cli(
      'account-create.ts',
      ['--name', 'Acme', '--role', 'standard', '--payment-plans', '--json'],
      {
        DATABASE_URL: process.env.DATABASE_URL,
      },
    );
    const created = JSON.parse(stdout);
    expect(created).toMatchObject({
      account_id: expect.stringMatching(/^acct_/),
      api_key: expect.stringMatching(/^sk_test_/),
      role: 'standard',
      payment_plans: true,
    });
    const account = await app.prisma.account.findUniqueOrThrow({ where: { id: created.account_id } });
    expect(account).toMatchObject({ name: 'Acme', paymentPlansEnabled: true });
    expect((await apiClient(app.baseUrl, created.api_key).get('/customers')).status).toBe(200);

    const key = JSON.parse(
      (
        await cli('key-create.ts', ['--account', created.account_id, '--role', 'superadmin', '--json'], {
          DATABASE_URL: process.env.DATABASE_URL,
        })
      ).stdout,
    );
    expect(key).toMatchObject({ account_id: created.account_id, role: 'superadmin' });
    expect(key.api_key).not.toBe(created.api_key);
    expect((await apiClient(app.baseUrl, key.api_key).get('/customers')).status).toBe(200);
  });

  it('defaults to the developer role and refuses bad arguments', async () => {
    const created = JSON.parse(
      (await cli('account-create.ts', ['--name', 'Dev Co', '--json'], { DATABASE_URL: process.env.DATABASE_URL }))
        .stdout,
    );
    expect(created.role).toBe('developer');
    await expect(
      cli('account-create.ts', ['--json'], { DATABASE_URL: process.env.DATABASE_URL }),
    ).rejects.toMatchObject({ code: 2 });
    await expect(
      cli('account-create.ts', ['--name', 'X', '--role', 'root'], { DATABASE_URL: process.env.DATABASE_URL }),
    ).rejects.toMatchObject({ code: 2 });
    // An unknown account is a failed operation (1), not bad usage (2).
    await expect(
      cli('key-create.ts', ['--account', 'acct_nope'], { DATABASE_URL: process.env.DATABASE_URL }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('No such account: acct_nope'),
    });
  });

  it('reaches the embedded cluster that is already running on the data folder instead of starting another', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-data-'));
    fs.chmodSync(dataDir, 0o777);
    // The cluster's port and the one the CLI would take: free, and below the ephemeral range (src/runtime/ports.ts).
    const port = await freePortBlock([0, 1]);
    const server = spawn(tsx, [
      path.join(projectRoot, 'test', 'support', 'embedded-postgres-process.ts'),
      path.join(dataDir, 'postgres'),
      String(port),
    ]);
    let stderr = '';
    server.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const running = await new Promise<{ url: string }>((resolve, reject) => {
      server.stdout.once('data', (chunk) => resolve(JSON.parse(String(chunk))));
      server.once('exit', (code) => reject(new Error(`cluster process exited ${code}: ${stderr}`)));
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

const db = () => ({ DATABASE_URL: process.env.DATABASE_URL });
const osIdentity = `${os.userInfo().username}@${os.hostname()}`;

describe('the conventions of every operator command (docs/operations.md)', () => {
  const commands: [string, string[], RegExp][] = [
    ['account-create.ts', [], /^Usage: npm run account:create -- --name/],
    ['key-create.ts', [], /^Usage: npm run key:create -- --account/],
    ['key-list.ts', [], /^Usage: npm run key:list -- --account/],
    ['key-revoke.ts', ['revoke'], /^Usage: npm run key:revoke -- --key/],
    ['key-revoke.ts', ['rotate'], /^Usage: npm run key:rotate -- --key/],
    ['migrate.ts', [], /^Usage: npm run db:migrate/],
    ['migration-new.ts', [], /^Usage: npm run db:diff -- <name_in_snake_case>/],
  ];

  it('--help and -h print the usage with the exit codes and exit 0, touching nothing', async () => {
    for (const [script, args, usage] of commands) {
      for (const flag of ['--help', '-h']) {
        // No database: help must not need one.
        const { stdout } = await cli(script, [...args, flag], { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' });
        expect(stdout).toMatch(usage);
        expect(stdout).toContain('Exit codes: 0 done');
      }
    }
  });

  it('an unknown option or an unexpected argument is a usage error: exit 2, naming it above the usage', async () => {
    for (const [script, args, usage] of commands) {
      const refused = await cli(script, [...args, '--frobnicate'], db()).catch((error) => error);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^Unknown option '--frobnicate'\.\n/);
      expect(refused.stderr.split('\n')[1]).toMatch(usage);
    }
    await expect(cli('key-list.ts', ['acct_x'], db())).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unexpected argument 'acct_x'"),
    });
  });

  it('key:rotate refuses a second rotation while the first successor is live; --force rotates again and warns; every change records who', async () => {
    const created = JSON.parse((await cli('account-create.ts', ['--name', 'Rotating', '--json'], db())).stdout);
    const first = JSON.parse((await cli('key-revoke.ts', ['rotate', '--key', created.key_id, '--json'], db())).stdout);
    expect(first.key_id).not.toBe(created.key_id);

    const again = await cli('key-revoke.ts', ['rotate', '--key', created.key_id], db()).catch((error) => error);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Key ${created.key_id} was already rotated: its successor ${first.key_id} is live`);
    expect(again.stderr).toContain('--force');
    expect(await app.prisma.apiKey.count({ where: { accountId: created.account_id } })).toBe(2);

    const forced = await cli(
      'key-revoke.ts',
      ['rotate', '--key', created.key_id, '--force', '--operator', 'Ops Jane', '--json'],
      db(),
    );
    const second = JSON.parse(forced.stdout);
    expect(second.previous_successor).toBe(first.key_id);
    expect(forced.stderr).toContain(
      `Warning (--force): key ${created.key_id} was already rotated to ${first.key_id}, which stays live`,
    );
    expect((await apiClient(app.baseUrl, first.api_key).get('/customers')).status).toBe(200);
    expect((await apiClient(app.baseUrl, second.api_key).get('/customers')).status).toBe(200);

    // Once the successor is revoked, a rotation of the first key is allowed again.
    await cli('key-revoke.ts', ['revoke', '--key', second.key_id], db());
    await cli('key-revoke.ts', ['revoke', '--key', first.key_id], db());
    const third = JSON.parse((await cli('key-revoke.ts', ['rotate', '--key', created.key_id, '--json'], db())).stdout);
    await expect(cli('key-revoke.ts', ['rotate', '--key', 'key_nope'], db())).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('No such key: key_nope'),
    });

    const actions = await app.prisma.operatorAction.findMany({
      where: { accountId: created.account_id },
      orderBy: { id: 'asc' },
    });
    expect(actions.map((action) => [action.command, action.operator, action.runAs])).toEqual([
      ['account:create', osIdentity, osIdentity],
      ['account:create', osIdentity, osIdentity],
      ['key:rotate', osIdentity, osIdentity],
      ['key:rotate', 'Ops Jane', osIdentity],
      ['key:revoke', osIdentity, osIdentity],
      ['key:revoke', osIdentity, osIdentity],
      ['key:rotate', osIdentity, osIdentity],
    ]);
    expect(actions[3]!.detail).toMatchObject({
      rotated_to: second.key_id,
      forced: true,
      previous_successor: first.key_id,
    });
    const listed = JSON.parse((await cli('key-list.ts', ['--account', created.account_id, '--json'], db())).stdout);
    expect(listed.find((key: any) => key.key_id === created.key_id).replaced_by).toBe(third.key_id);
  });
});
