/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 120000,
  maxWorkers: 2,
  // A worker whose heap grew past this after a test file is replaced before the next one: the suite's files
  // (each with its app, PostgreSQL client and Temporal connections) add up past Node's heap in one worker.
  workerIdleMemoryLimit: '1536MB',
  // Temporal's native connections and timers close asynchronously after the last test.
  forceExit: true,
};
