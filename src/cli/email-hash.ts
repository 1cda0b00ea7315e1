import { customerEmailFilter, customerEmailHashes, normalizeEmail } from '../temporal';
import { fail, parseCommandLine, runCommand } from './operator';

const usage = `Usage: npm run email-hash -- <email> [--json]
  Prints the Temporal Web UI filter that finds a customer's subscription and payment-plan workflows by
  email: BillingCustomerEmailHash holds a keyed hash of the address, never the address
  (docs/operations.md, "Customer data in Temporal"). Needs the service's SECRETS_ENCRYPTION_KEY (and
  SECRETS_ENCRYPTION_OLD_KEYS: workflows started before a rotation carry the hash under a former key).`;

/** `npm run email-hash -- ada@example.com`: the Web UI filter on BillingCustomerEmailHash for an address. */
async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(usage, { json: { type: 'boolean' } }, { allowPositionals: true });
  const [email, ...extra] = positionals;
  if (!email || extra.length > 0 || !normalizeEmail(email).includes('@')) fail(usage);
  const filter = customerEmailFilter(email);
  if (values.json) {
    console.log(JSON.stringify({ email: normalizeEmail(email), hashes: customerEmailHashes(email), filter }));
    return;
  }
  console.log(filter);
}

runCommand(main);
