import { parseArgs } from 'node:util';
import { AUTH_CACHE_MS } from '../http/auth';
import { expireApiKey, rotateApiKey } from '../accounts/account.service';
import { fail, withDatabase } from './operator';

/**
 * `npm run key:revoke -- --key <key_id>`: the key answers 401 from now on (within the API's 30 s auth
 * cache). `npm run key:rotate -- --key <key_id> [--overlap-hours 24]`: a new key (printed once) with
 * the same account and role; the old one keeps working for the overlap, then answers 401.
 */
const usage = {
  revoke: 'Usage: npm run key:revoke -- --key <key_id> [--json]',
  rotate: 'Usage: npm run key:rotate -- --key <key_id> [--overlap-hours <0..720, default 24>] [--json]',
};

async function main(): Promise<void> {
  const command = process.argv[2] === 'rotate' ? 'rotate' : 'revoke';
  const { values } = parseArgs({
    args: process.argv.slice(3),
    options: { key: { type: 'string' }, 'overlap-hours': { type: 'string', default: '24' }, json: { type: 'boolean', default: false } },
  });
  const keyId = values.key;
  if (!keyId) fail(usage[command]);
  const hours = Number(values['overlap-hours']);
  if (!Number.isFinite(hours) || hours < 0 || hours > 720) fail(`--overlap-hours must be a number from 0 to 720.\n${usage.rotate}`);
  const cacheSeconds = AUTH_CACHE_MS / 1000;
  if (command === 'revoke') {
    const revoked = await withDatabase((prisma) => expireApiKey(prisma, keyId, new Date()));
    if (!revoked) fail(`No such key: ${keyId}`);
    if (values.json) console.log(JSON.stringify({ key_id: keyId, expires_at: revoked.expiresAt.toISOString() }));
    else console.log(`Key ${keyId} revoked; running API processes refuse it within ${cacheSeconds} s.`);
    return;
  }
  const rotated = await withDatabase((prisma) => rotateApiKey(prisma, keyId, hours * 3_600_000));
  if (!rotated) fail(`No such key: ${keyId}`);
  if (values.json) console.log(JSON.stringify(rotated));
  else console.log(`New API key ${rotated.key_id} for ${rotated.account_id} (role ${rotated.role}), shown once: ${rotated.api_key}\nOld key ${keyId} works until ${rotated.old_key_expires_at}.`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
