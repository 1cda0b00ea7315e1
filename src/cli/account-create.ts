import { createAccount, GATEWAY_KINDS, isRole, type GatewayKind } from '../accounts';
import { fail, operatorActor, OPERATOR_OPTION, parseCommandLine, runCommand, withDatabase } from './operator';

const usage = `Usage: npm run account:create -- --name "Acme" [--role standard|developer|superadmin] [--payment-plans]
                          [--gateway card_processor|bank_processor] [--operator NAME] [--json]
  Creates an account and its first API key, printed once. --operator: who to record (default: OS user@host).
Exit codes: 0 done, 1 failed, 2 bad usage (docs/operations.md).`;

async function main(): Promise<number> {
  const { values } = parseCommandLine(usage, {
    name: { type: 'string' },
    role: { type: 'string', default: 'developer' },
    'payment-plans': { type: 'boolean', default: false },
    gateway: { type: 'string', default: 'card_processor' },
    json: { type: 'boolean', default: false },
    ...OPERATOR_OPTION,
  });
  const name = values.name?.trim();
  if (!name) fail(`--name is required.\n${usage}`);
  if (!isRole(values.role)) fail(`--role must be standard, developer or superadmin.\n${usage}`);
  if (!(GATEWAY_KINDS as readonly string[]).includes(values.gateway))
    fail(`--gateway must be ${GATEWAY_KINDS.join(' or ')}.\n${usage}`);
  const role = values.role;
  const actor = operatorActor(values.operator, 'account:create');
  const created = await withDatabase((prisma) =>
    createAccount(
      prisma,
      { name, role, paymentPlans: values['payment-plans'], gatewayKind: values.gateway as GatewayKind },
      actor,
    ),
  );
  if (values.json) {
    console.log(JSON.stringify(created));
  } else {
    console.log(`Account ${created.account_id} (${created.name}) created by ${actor.operator}.`);
    console.log(`API key (role ${created.role}), shown once: ${created.api_key}`);
  }
  return 0;
}

runCommand(main);
