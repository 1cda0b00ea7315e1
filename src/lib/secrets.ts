import crypto from 'node:crypto';
import { testModeEnabled } from './test-mode';

/**
 * Server-side secrets. Each has a built-in default so `npm start` and the tests need no setup; with
 * `NODE_ENV=production` the API and the worker refuse to start while one is missing or still its
 * default (docs/configuration.md).
 */
export const BUILT_IN_SECRETS = {
  PAYMENT_FINGERPRINT_SECRET: 'billing-service/payment-method-fingerprint/v1',
  IDEMPOTENCY_HASH_SECRET: 'billing-service/idempotency-request-hash/v1',
  // 32 bytes, base64: development and tests only.
  SECRETS_ENCRYPTION_KEY: Buffer.from('billing-service/dev-secrets-key!').toString('base64'),
} as const;

export type SecretName = keyof typeof BUILT_IN_SECRETS;

export function secretValue(name: SecretName, env: NodeJS.ProcessEnv = process.env): string {
  return env[name] || BUILT_IN_SECRETS[name];
}

/** An AES-256 key from its base64 text (32 bytes), or undefined when it is not one. */
export function decodeEncryptionKey(text: string): Buffer | undefined {
  const key = Buffer.from(text, 'base64');
  return key.length === 32 && key.toString('base64') === text.replace(/\s/g, '') ? key : undefined;
}

/** Why the process may not start in production; empty outside production or when all is set. */
export function productionProblems(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  for (const name of Object.keys(BUILT_IN_SECRETS) as SecretName[]) {
    const value = env[name];
    if (!value) problems.push(`${name} is not set`);
    else if (value === BUILT_IN_SECRETS[name]) problems.push(`${name} is the built-in development default`);
  }
  const key = env.SECRETS_ENCRYPTION_KEY;
  if (key && !decodeEncryptionKey(key))
    problems.push('SECRETS_ENCRYPTION_KEY is not 32 bytes in base64 (openssl rand -base64 32)');
  return problems;
}

/**
 * Production fail-fast: one clear line on stderr and exit code 1 when a production secret is missing
 * or a default. Test-mode routes stay off in production unless BILLING_TEST_MODE=true asks for them.
 */
export function refuseUnsafeProductionStart(processName: string, env: NodeJS.ProcessEnv = process.env): void {
  const problems = productionProblems(env);
  if (problems.length === 0) {
    if (env.NODE_ENV === 'production' && testModeEnabled(env)) {
      console.warn(`${processName}: BILLING_TEST_MODE=true in production: the test-helper routes are served`);
    }
    return;
  }
  console.error(`${processName} refuses to start with NODE_ENV=production: ${problems.join('; ')}`);
  process.exit(1);
}

/** A fresh random 32-byte key in base64 (for documentation and tests). */
export function newEncryptionKey(): string {
  return crypto.randomBytes(32).toString('base64');
}
