import { createApiKey, isRole, readAccount } from '../accounts';
import { fail, operatorActor, OPERATOR_OPTION, parseCommandLine, refuse, runCommand, withDatabase } from './operator';

const usage = `Usage: npm run key:create -- --account <acct_id> [--role standard|developer|superadmin] [--operator NAME] [--json]
  Issues another API key for the account, printed once. --operator: who to record (default: OS user@host).
Exit codes: 0 done, 1 failed (unknown account), 2 bad usage (docs/operations.md).`;

async function main(): Promise<number> {
  const { values } = parseCommandLine(usage, {
    account: { type: 'string' },
    role: { type: 'string', default: 'developer' },
    json: { type: 'boolean', default: false },
    ...OPERATOR_OPTION,
  });
  const accountId = values.account;
  if (!accountId) fail(`--account is required.\n${usage}`);
  if (!isRole(values.role)) fail(`--role must be standard, developer or superadmin.\n${usage}`);
  const role = values.role;
  const actor = operatorActor(values.operator, 'key:create');
  const created = await withDatabase(async (prisma) => {
    if (!(await readAccount(prisma, accountId))) refuse(`No such account: ${accountId}`);
    return prisma.$transaction((tx) => createApiKey(tx, accountId, role, actor));
  });
  if (values.json) console.log(JSON.stringify(created));
  else
    console.log(
      `API key ${created.key_id} for ${created.account_id} (role ${created.role}), shown once: ${created.api_key}`,
    );
  return 0;
}

runCommand(main);
