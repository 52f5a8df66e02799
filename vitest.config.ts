import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    environment: 'node',
    // dist/ is built first when a source file changed since (the end-to-end tests run it).
    globalSetup: ['test/support/build-dist.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // No test (nor the binary it runs) remembers checked tape files in the user's cache; the tests
    // of that cache give their own AGENTCTL_CACHE.
    env: { AGENTCTL_CACHE: 'off' },
  },
});
