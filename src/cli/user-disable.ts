import { z } from 'zod';
import { setUserDisabled } from '../dashboard-auth';
import { fail, operatorActor, OPERATOR_OPTION, parseCommandLine, refuse, runCommand, withDatabase } from './operator';

const usage = `Usage: npm run user:disable -- --email EMAIL [--enable] [--operator NAME] [--json]
  Disables a dashboard user: they cannot sign in, and every session of theirs ends at once (an open
  dashboard answers 401 at its next request). Their memberships stay; --enable lets them sign in again.
  --operator: who to record (default: OS user@host).
Exit codes: 0 done (or already so), 1 failed (no user with that email), 2 bad usage (docs/operations.md).`;

async function main(): Promise<number> {
  const { values } = parseCommandLine(usage, {
    email: { type: 'string' },
    enable: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    ...OPERATOR_OPTION,
  });
  const email = values.email?.trim();
  if (!email) fail(`--email is required.\n${usage}`);
  if (!z.email().safeParse(email).success) fail(`--email must be an email address.\n${usage}`);
  const actor = operatorActor(values.operator, 'user:disable');
  const result = await withDatabase((prisma) => setUserDisabled(prisma, { email, disabled: !values.enable }, actor));
  if (result.outcome === 'unknown_user') return refuse(`No dashboard user has the email ${email}.`);
  if (values.json) console.log(JSON.stringify(result));
  else if (result.outcome === 'unchanged')
    console.log(
      `User ${result.user_id} (${result.email}) was ${result.disabled ? 'disabled' : 'enabled'} already` +
        (result.sessions_ended > 0 ? `; ${result.sessions_ended} session(s) ended.` : '.'),
    );
  else
    console.log(
      `User ${result.user_id} (${result.email}) ${result.outcome} by ${actor.operator}` +
        (result.disabled ? `; ${result.sessions_ended} session(s) ended.` : '.'),
    );
  return 0;
}

runCommand(main);
