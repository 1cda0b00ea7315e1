import { parseArgs } from 'node:util';
import { createApiKey, isRole } from '../accounts/account.service';
import { fail, withDatabase } from './operator';

const usage = 'Usage: npm run key:create -- --account <acct_id> [--role standard|developer|superadmin] [--json]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      account: { type: 'string' },
      role: { type: 'string', default: 'developer' },
      json: { type: 'boolean', default: false },
    },
  });
  const accountId = values.account;
  if (!accountId) fail(usage);
  if (!isRole(values.role)) fail(`--role must be standard, developer or superadmin.\n${usage}`);
  const role = values.role;
  const created = await withDatabase(async (prisma) => {
    const account = await prisma.account.findUnique({ where: { id: accountId } });
    if (!account) fail(`No such account: ${accountId}`);
    return createApiKey(prisma, accountId, role);
  });
  if (values.json) console.log(JSON.stringify(created));
  else console.log(`API key for ${created.account_id} (role ${created.role}), shown once: ${created.api_key}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
