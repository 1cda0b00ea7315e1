import { parseArgs } from 'node:util';
import { createAccount, GATEWAY_KINDS, isRole, type GatewayKind } from '../accounts/account.service';
import { fail, withDatabase } from './operator';

const usage =
  'Usage: npm run account:create -- --name "Acme" [--role standard|developer|superadmin] [--payment-plans] ' +
  '[--gateway card_processor|bank_processor] [--json]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      role: { type: 'string', default: 'developer' },
      'payment-plans': { type: 'boolean', default: false },
      gateway: { type: 'string', default: 'card_processor' },
      json: { type: 'boolean', default: false },
    },
  });
  const name = values.name?.trim();
  if (!name) fail(usage);
  if (!isRole(values.role)) fail(`--role must be standard, developer or superadmin.\n${usage}`);
  if (!(GATEWAY_KINDS as readonly string[]).includes(values.gateway)) fail(`--gateway must be ${GATEWAY_KINDS.join(' or ')}.`);
  const role = values.role;
  const created = await withDatabase((prisma) =>
    createAccount(prisma, { name, role, paymentPlans: values['payment-plans'], gatewayKind: values.gateway as GatewayKind }),
  );
  if (values.json) {
    console.log(JSON.stringify(created));
  } else {
    console.log(`Account ${created.account_id} (${created.name}) created.`);
    console.log(`API key (role ${created.role}), shown once: ${created.api_key}`);
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
