/**
 * Test mode: test helpers (`/test-helpers/...`: the simulated terminal, test clocks) are served. On unless
 * `BILLING_TEST_MODE=false`, or `NODE_ENV=production` without `BILLING_TEST_MODE=true`.
 */
export function testModeEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = env.BILLING_TEST_MODE?.trim().toLowerCase();
  if (flag === 'true' || flag === '1') return true;
  if (flag === 'false' || flag === '0') return false;
  return env.NODE_ENV !== 'production';
}
