import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // vitest's default (cores - 1) runs one file at a time on a 2-core CI runner, while most of
    // the slow files wait on moto, child processes or real-time timers: two overlap that waiting.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Files share a worker's module cache instead of importing the code again each: no test
          // here mocks a module or keeps state in one (integration does: it re-imports handlers).
          isolate: false,
          // A guard against hangs, not a speed check: `npm start` children and properties share
          // the two cores with the other worker, and took over vitest's 5 s default under load.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          // aws-cdk-lib and cdk-nag are imported once per worker, not once per file.
          isolate: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'reliability',
          include: ['test/reliability/**/*.test.ts'],
          // One module cache, and the JIT's warm code, per worker rather than per file.
          isolate: false,
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/moto-global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'deploy',
          include: ['test/deploy/**/*.test.ts'],
          globalSetup: ['test/deploy/support/deployed-global-setup.ts'],
          // The files share one deployment and one platform: one at a time.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
