import { z } from 'zod';
import { isRole } from '../accounts';
import { createUser } from '../dashboard-auth';
import { newPassword } from '../dashboard-auth';
import { fail, operatorActor, OPERATOR_OPTION, parseCommandLine, refuse, runCommand, withDatabase } from './operator';

const usage = `Usage: npm run user:create -- --account <acct_id> --email EMAIL [--password PASSWORD] [--name NAME]
                       [--role standard|developer|superadmin] [--operator NAME] [--json]
  Creates a dashboard user with a membership of the account (role standard unless given), or adds the
  membership to the user who has the email already (then without --password: their password stays theirs).
  --operator: who to record (default: OS user@host).
Exit codes: 0 done, 1 failed (unknown account, already a member), 2 bad usage (docs/operations.md).`;

async function main(): Promise<number> {
  const { values } = parseCommandLine(usage, {
    account: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string' },
    role: { type: 'string', default: 'standard' },
    json: { type: 'boolean', default: false },
    ...OPERATOR_OPTION,
  });
  const accountId = values.account;
  if (!accountId) fail(`--account is required.\n${usage}`);
  const email = values.email?.trim();
  if (!email) fail(`--email is required.\n${usage}`);
  if (!z.email().safeParse(email).success) fail(`--email must be an email address.\n${usage}`);
  if (values.password !== undefined && !newPassword.safeParse(values.password).success)
    fail(`--password must have 10 to 200 characters.\n${usage}`);
  if (!isRole(values.role)) fail(`--role must be standard, developer or superadmin.\n${usage}`);
  const role = values.role;
  const actor = operatorActor(values.operator, 'user:create');
  const result = await withDatabase((prisma) =>
    createUser(prisma, { accountId, email, name: values.name, password: values.password, role }, actor),
  );
  switch (result.outcome) {
    case 'unknown_account':
      return refuse(`No such account: ${accountId}`);
    case 'already_member':
      return refuse(`User ${result.user_id} (${email}) is already a member of ${accountId}.`);
    case 'password_for_existing_user':
      return refuse(
        `User ${result.user_id} has the email ${email} already: run again without --password to add the membership.`,
      );
    case 'password_required':
      return fail(`--password is required for a new user.\n${usage}`);
    case 'created':
    case 'member_added':
      break;
  }
  if (values.json) console.log(JSON.stringify(result));
  else
    console.log(
      result.outcome === 'created'
        ? `User ${result.user_id} (${result.email}) created with role ${result.role} on ${result.account_id} by ${actor.operator}.`
        : `User ${result.user_id} (${result.email}) added to ${result.account_id} with role ${result.role} by ${actor.operator}.`,
    );
  return 0;
}

runCommand(main);
