import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/config';
import { createTestAccount, startTestApp, type TestApp } from '../support/harness';
import { createTestUser, login, signIn } from '../support/dashboard';

/** `npm run user:create` and `user:disable` (docs/operations.md, "Operator commands"): exit codes, --help, operator_actions. */
const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

async function userCreate(
  args: string[],
  command = 'user-create',
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(tsx, [path.join(projectRoot, 'src', 'cli', `${command}.ts`), ...args], {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('user:create', () => {
  it('creates a user who can sign in, records who did it, and adds a second account to the same user', async () => {
    const { accountId } = await createTestAccount(app.prisma, { name: 'CLI account' });
    const created = await userCreate([
      '--account',
      accountId,
      '--email',
      'Operator.Made@Example.com',
      '--password',
      'long enough password',
      '--role',
      'developer',
      '--operator',
      'alice',
      '--json',
    ]);
    expect(created.code).toBe(0);
    const result = JSON.parse(created.stdout);
    expect(result).toEqual({
      outcome: 'created',
      user_id: expect.stringMatching(/^usr_/),
      email: 'operator.made@example.com',
      account_id: accountId,
      role: 'developer',
    });
    const signedIn = await login(app.baseUrl, { email: 'operator.made@example.com', password: 'long enough password' });
    expect(signedIn.status).toBe(201);
    expect(signedIn.body.account).toMatchObject({ id: accountId, role: 'developer' });
    const actions = await app.prisma.operatorAction.findMany({ where: { target: result.user_id } });
    expect(actions).toEqual([
      expect.objectContaining({
        operator: 'alice',
        command: 'user:create',
        accountId,
        detail: { created: result.user_id, email: 'operator.made@example.com', role: 'developer' },
      }),
    ]);
    expect(JSON.stringify(actions.map((action) => action.detail))).not.toContain('long enough password');

    const second = await createTestAccount(app.prisma, { name: 'Second' });
    const withPassword = await userCreate([
      '--account',
      second.accountId,
      '--email',
      'operator.made@example.com',
      '--password',
      'another password!',
    ]);
    expect(withPassword.code).toBe(1);
    expect(withPassword.stderr).toContain('without --password');
    const added = await userCreate(['--account', second.accountId, '--email', 'operator.made@example.com']);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^User usr_\w+ \(operator.made@example.com\) added to acct_\w+ with role standard/);
    const again = await userCreate(['--account', second.accountId, '--email', 'operator.made@example.com']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already a member');
  });

  it('answers --help with 0, bad usage with 2 and an unknown account with 1', async () => {
    const help = await userCreate(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run user:create -- --account/);
    for (const args of [
      [],
      ['--account', 'acct_x'],
      ['--account', 'acct_x', '--email', 'not-an-email', '--password', 'long enough password'],
      ['--account', 'acct_x', '--email', 'a@example.com', '--password', 'short'],
      ['--account', 'acct_x', '--email', 'a@example.com', '--password', 'long enough password', '--role', 'owner'],
      ['--account', 'acct_x', '--email', 'a@example.com', '--bogus'],
    ]) {
      const answer = await userCreate(args);
      expect({ args, code: answer.code }).toEqual({ args, code: 2 });
      expect(answer.stderr).toContain('Usage: npm run user:create');
    }
    const unknown = await userCreate([
      '--account',
      'acct_nothing',
      '--email',
      'a@example.com',
      '--password',
      'long enough password',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No such account: acct_nothing');
    const { accountId } = await createTestAccount(app.prisma);
    const noPassword = await userCreate(['--account', accountId, '--email', 'nopass@example.com']);
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toContain('--password is required');
  });
});

describe('user:disable', () => {
  const userDisable = (args: string[]) => userCreate(args, 'user-disable');

  it('ends every session of the user at once and refuses their sign-in until --enable; recorded, exit codes', async () => {
    const { accountId } = await createTestAccount(app.prisma, { name: 'Disable account' });
    const user = await createTestUser(app.prisma, accountId, { email: 'leaver@example.com' });
    const open = await signIn(app.baseUrl, user.email, user.password);
    expect((await open.api.get('/customers')).status).toBe(200);

    const disabled = await userDisable(['--email', 'Leaver@Example.com', '--operator', 'alice', '--json']);
    expect(disabled.code).toBe(0);
    expect(JSON.parse(disabled.stdout)).toEqual({
      outcome: 'disabled',
      user_id: user.userId,
      email: 'leaver@example.com',
      disabled: true,
      sessions_ended: 1,
    });
    expect((await open.api.get('/customers')).status).toBe(401);
    expect((await login(app.baseUrl, { email: user.email, password: user.password })).status).toBe(401);
    const again = await userDisable(['--email', user.email]);
    expect([again.code, again.stdout]).toEqual([0, `User ${user.userId} (leaver@example.com) was disabled already.\n`]);

    const enabled = await userDisable(['--email', user.email, '--enable', '--operator', 'bob']);
    expect(enabled.code).toBe(0);
    expect(enabled.stdout).toBe(`User ${user.userId} (leaver@example.com) enabled by bob.\n`);
    const back = await login(app.baseUrl, { email: user.email, password: user.password });
    expect(back.status).toBe(201);
    expect(back.body.account).toMatchObject({ id: accountId, role: 'developer' });
    const actions = await app.prisma.operatorAction.findMany({
      where: { target: user.userId },
      orderBy: { id: 'asc' },
    });
    expect(actions.map((action) => [action.operator, action.command, action.detail])).toEqual([
      ['alice', 'user:disable', { email: 'leaver@example.com', disabled: true }],
      ['bob', 'user:disable', { email: 'leaver@example.com', disabled: false }],
    ]);

    expect((await userDisable(['--email', 'nobody@example.com'])).code).toBe(1);
    for (const args of [[], ['--email', 'not-an-email'], ['--email', 'a@example.com', '--bogus']]) {
      const answer = await userDisable(args);
      expect({ args, code: answer.code }).toEqual({ args, code: 2 });
      expect(answer.stderr).toContain('Usage: npm run user:disable');
    }
  });
});
