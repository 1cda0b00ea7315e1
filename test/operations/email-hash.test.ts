import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { newEncryptionKey } from '../../src/lib/secrets';
import { customerEmailFilter, customerEmailHash, customerEmailHashes } from '../../src/temporal/email-hash';

// BillingCustomerEmailHash (src/temporal/email-hash.ts): a keyed hash of the trimmed, lower-cased email,
// and the filter operators paste into the Web UI (`npm run email-hash`), under every listed key.

it('hashes the trimmed, lower-cased address under a key derived from the service key', () => {
  const env = { SECRETS_ENCRYPTION_KEY: newEncryptionKey() };
  const hash = customerEmailHash('ada@example.com', env);
  expect(hash).toMatch(/^[0-9a-f]{64}$/);
  expect(customerEmailHash('  Ada@Example.COM ', env)).toBe(hash);
  expect(customerEmailHash('ada@example.com', { SECRETS_ENCRYPTION_KEY: newEncryptionKey() })).not.toBe(hash);
  expect(customerEmailFilter('ada@example.com', env)).toBe(`BillingCustomerEmailHash = '${hash}'`);
});

it('after a rotation the filter finds the workflows hashed under the former key too', () => {
  const [former, current] = [newEncryptionKey(), newEncryptionKey()];
  const before = customerEmailHash('ada@example.com', { SECRETS_ENCRYPTION_KEY: former });
  const env = { SECRETS_ENCRYPTION_KEY: current, SECRETS_ENCRYPTION_OLD_KEYS: former };
  const after = customerEmailHash('ada@example.com', env);
  expect(customerEmailHashes('ada@example.com', env)).toEqual([after, before]);
  expect(customerEmailFilter('ada@example.com', env)).toBe(`BillingCustomerEmailHash IN ('${after}', '${before}')`);
});

it('npm run email-hash prints the filter (and the hashes with --json)', () => {
  const key = newEncryptionKey();
  const run = (...args: string[]) =>
    spawnSync(
      process.execPath,
      ['--require', 'tsx/cjs', path.join(__dirname, '..', '..', 'src', 'cli', 'email-hash.ts'), ...args],
      {
        env: { ...process.env, SECRETS_ENCRYPTION_KEY: key, SECRETS_ENCRYPTION_OLD_KEYS: '' },
        encoding: 'utf8',
      },
    );
  const printed = run(' Ada@Example.com ');
  expect(printed.status).toBe(0);
  expect(printed.stdout.trim()).toBe(
    `BillingCustomerEmailHash = '${customerEmailHash('ada@example.com', { SECRETS_ENCRYPTION_KEY: key })}'`,
  );
  expect(JSON.parse(run('ada@example.com', '--json').stdout)).toMatchObject({
    email: 'ada@example.com',
    hashes: [customerEmailHash('ada@example.com', { SECRETS_ENCRYPTION_KEY: key })],
  });
  expect(run().status).toBe(2);
  expect(run('a@b.c', '--bogus').status).toBe(2);
});
