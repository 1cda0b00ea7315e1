import { AUTH_CACHE_MS } from '../http/auth';
import { HOUR_MS } from '../lib/durations';
import { expireApiKey, rotateApiKey } from '../accounts';
import { fail, operatorActor, OPERATOR_OPTION, parseCommandLine, refuse, runCommand, withDatabase } from './operator';

/**
 * `npm run key:revoke -- --key <key_id>`: the key answers 401 from now on (running API processes are told at
 * once; one that missed it refuses the key within its 30 s auth cache). `npm run key:rotate -- --key <key_id> [--overlap-hours 24] [--force]`: a new key (printed
 * once) with the same account and role; the old one keeps working for the overlap, then answers 401.
 */
const exitCodes =
  'Exit codes: 0 done, 1 failed or refused (unknown key, a live successor), 2 bad usage (docs/operations.md).';
const usage = {
  revoke: `Usage: npm run key:revoke -- --key <key_id> [--operator NAME] [--json]
  Ends the key now: running API processes refuse it at once (within 30 s at most). --operator: who to record (default: OS user@host).
${exitCodes}`,
  rotate: `Usage: npm run key:rotate -- --key <key_id> [--overlap-hours <0..720, default 24>] [--force] [--operator NAME] [--json]
  Issues a new key (printed once) with the same account and role; the old key keeps working for the overlap.
  A key already rotated whose successor still works is refused (exit 1, naming the successor) unless --force.
  --operator: who to record (default: OS user@host).
${exitCodes}`,
};

const cacheSeconds = AUTH_CACHE_MS / 1000;

async function revoke(args: string[]): Promise<number> {
  const { values } = parseCommandLine(
    usage.revoke,
    { key: { type: 'string' }, json: { type: 'boolean', default: false }, ...OPERATOR_OPTION },
    { args },
  );
  const keyId = values.key;
  if (!keyId) fail(`--key is required.\n${usage.revoke}`);
  const actor = operatorActor(values.operator, 'key:revoke');
  const revoked = await withDatabase((prisma) =>
    prisma.$transaction((tx) => expireApiKey(tx, keyId, new Date(), actor)),
  );
  if (!revoked) refuse(`No such key: ${keyId}`);
  if (values.json) console.log(JSON.stringify({ key_id: keyId, expires_at: revoked.expiresAt.toISOString() }));
  else
    console.log(
      `Key ${keyId} revoked by ${actor.operator}; running API processes refuse it at once (within ${cacheSeconds} s at most).`,
    );
  return 0;
}

async function rotate(args: string[]): Promise<number> {
  const { values } = parseCommandLine(
    usage.rotate,
    {
      key: { type: 'string' },
      'overlap-hours': { type: 'string', default: '24' },
      force: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      ...OPERATOR_OPTION,
    },
    { args },
  );
  const keyId = values.key;
  if (!keyId) fail(`--key is required.\n${usage.rotate}`);
  const hours = Number(values['overlap-hours']);
  if (!Number.isFinite(hours) || hours < 0 || hours > 720)
    fail(`--overlap-hours must be a number from 0 to 720.\n${usage.rotate}`);
  const actor = operatorActor(values.operator, 'key:rotate');
  const result = await withDatabase((prisma) =>
    rotateApiKey(prisma, keyId, hours * HOUR_MS, { force: values.force, actor }),
  );
  switch (result.outcome) {
    case 'unknown_key':
      return refuse(`No such key: ${keyId}`);
    case 'has_live_successor':
      return refuse(
        `Key ${keyId} was already rotated: its successor ${result.successor.key_id} is live` +
          `${result.successor.expires_at ? ` (until ${result.successor.expires_at})` : ''}. Nothing changed. ` +
          `Give clients ${result.successor.key_id} (or revoke it first), or rotate again with --force to issue one more live key.`,
      );
    case 'rotated': {
      const { created, replaced } = result;
      if (replaced) {
        console.error(
          `Warning (--force): key ${keyId} was already rotated to ${replaced.key_id}, which stays live; ` +
            `revoke it if no client uses it: npm run key:revoke -- --key ${replaced.key_id}`,
        );
      }
      if (values.json)
        console.log(JSON.stringify({ ...created, ...(replaced ? { previous_successor: replaced.key_id } : {}) }));
      else
        console.log(
          `New API key ${created.key_id} for ${created.account_id} (role ${created.role}), shown once: ${created.api_key}\nOld key ${keyId} works until ${created.old_key_expires_at}.`,
        );
      return 0;
    }
  }
}

function main(): Promise<number> {
  return process.argv[2] === 'rotate' ? rotate(process.argv.slice(3)) : revoke(process.argv.slice(3));
}

runCommand(main);
