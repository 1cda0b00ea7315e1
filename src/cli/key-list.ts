import { listApiKeys, readAccount } from '../accounts';
import { fail, parseCommandLine, refuse, runCommand, withDatabase } from './operator';

const usage = `Usage: npm run key:list -- --account <acct_id> [--json]
  The account's keys, newest first: id, first 12 characters, role, status (active, expiring, revoked), last use.
Exit codes: 0 done, 1 failed (unknown account), 2 bad usage (docs/operations.md).`;

async function main(): Promise<number> {
  const { values } = parseCommandLine(usage, {
    account: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  const accountId = values.account;
  if (!accountId) fail(`--account is required.\n${usage}`);
  const keys = await withDatabase(async (prisma) => {
    if (!(await readAccount(prisma, accountId))) refuse(`No such account: ${accountId}`);
    return listApiKeys(prisma, accountId);
  });
  if (values.json) {
    console.log(JSON.stringify(keys));
    return 0;
  }
  for (const key of keys) {
    console.log(
      `${key.key_id}  ${key.key_prefix}...  ${key.role}  ${key.status}  created ${key.created_at}  last used ${key.last_used_at ?? 'never'}` +
        (key.expires_at ? `  ${key.status === 'revoked' ? 'revoked' : 'expires'} ${key.expires_at}` : '') +
        (key.replaced_by ? `  rotated to ${key.replaced_by}` : ''),
    );
  }
  return 0;
}

runCommand(main);
