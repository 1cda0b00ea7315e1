import { parseArgs } from 'node:util';
import { listApiKeys } from '../accounts/account.service';
import { fail, withDatabase } from './operator';

const usage = 'Usage: npm run key:list -- --account <acct_id> [--json]';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { account: { type: 'string' }, json: { type: 'boolean', default: false } } });
  const accountId = values.account;
  if (!accountId) fail(usage);
  const keys = await withDatabase(async (prisma) => {
    if (!(await prisma.account.findUnique({ where: { id: accountId } }))) fail(`No such account: ${accountId}`);
    return listApiKeys(prisma, accountId);
  });
  if (values.json) {
    console.log(JSON.stringify(keys));
    return;
  }
  for (const key of keys) {
    console.log(
      `${key.key_id}  ${key.key_prefix}...  ${key.role}  ${key.status}  created ${key.created_at}  last used ${key.last_used_at ?? 'never'}` +
        (key.expires_at ? `  ${key.status === 'revoked' ? 'revoked' : 'expires'} ${key.expires_at}` : ''),
    );
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
