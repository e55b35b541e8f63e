import { defineConfig } from 'vitest/config';

// Four projects: fast pure tests; integration tests against the real Cassandra and Redis (its
// global setup provisions or reuses one node per run); browser tests of the web editor in
// headless Chromium over the same stores; fault tests, which stop, pause and kill a private
// Cassandra node and a private redis-server of their own; and cluster tests, the same on a
// private 3-node ring (RF 3). `npm test` runs the first two (`--project unit --project
// integration`: negations would be OR-ed); `test:browser`, `test:faults` and `test:cluster` the others;
// `test:regions` the two-DC ring in network namespaces (root only; not in CI yet).
export default defineConfig({
  test: {
    // The fault suite's teardown stops its private Cassandra node (SIGTERM, then SIGKILL after
    // 20 s); vitest would otherwise exit after 10 s, leaving the node running.
    teardownTimeout: 60_000,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // The web editor in headless Chromium over the real service (`npm run test:browser`);
          // same stores and keyspace as the integration project.
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          globalSetup: ['test/faults/global-setup.ts'],
          // One private node for the whole suite, and tests that kill it: one file at a time.
          fileParallelism: false,
          testTimeout: 240_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          globalSetup: ['test/cluster/global-setup.ts'],
          // One private ring for the whole suite, and tests that kill and pause its nodes.
          fileParallelism: false,
          // Any order: every file first puts the ring back to three live nodes (ensureFullRing).
          testTimeout: 240_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'regions',
          include: ['test/regions/**/*.test.ts'],
          globalSetup: ['test/regions/global-setup.ts'],
          // One private two-DC ring (network namespaces: root only) and tests that cut its links.
          fileParallelism: false,
          testTimeout: 240_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
