/**
 * The infrastructure depends on the runtime through two modules only: the action list
 * (`lambdas/actions`) and the deployment contract (`lambdas/deployment-contract.ts`). Anything
 * else it needs from lambdas/ is added to the contract first, where a reader sees it.
 */
import { describe, expect, it } from 'vitest';
import { relativeImportsOf } from '../support/relative-imports';

/** The only runtime modules lib/ and bin/ may import, without extension. */
const ALLOWED = ['lambdas/actions', 'lambdas/actions/index', 'lambdas/deployment-contract'];

const IMPORTS = ['lib', 'bin'].flatMap(relativeImportsOf);
const intoRuntime = IMPORTS.filter((i) => i.target.startsWith('lambdas/'));

describe('what the infrastructure imports from the runtime', () => {
  it('reads the import lines of lib/ and bin/ (the check sees something)', () => {
    // Assess
    expect(IMPORTS.map((i) => i.file)).toEqual(
      expect.arrayContaining(['bin/app.ts', 'lib/config.ts']),
    );
    expect(intoRuntime.map((i) => i.target)).toEqual(
      expect.arrayContaining(['lambdas/actions', 'lambdas/deployment-contract']),
    );
  });

  it('is only the action list and the deployment contract', () => {
    // Act
    const beyond = intoRuntime.filter((i) => !ALLOWED.includes(i.target));

    // Assess
    expect(beyond).toEqual([]);
  });
});

describe('what the runtime imports', () => {
  it('is nothing from lib/, bin/, local/ or ops/ (reconciliation shares its code with ops from lambdas/)', () => {
    // Act
    const outward = relativeImportsOf('lambdas').filter((i) =>
      ['lib/', 'bin/', 'local/', 'ops/'].some((folder) => i.target.startsWith(folder)),
    );

    // Assess
    expect(relativeImportsOf('lambdas').map((i) => i.file)).toEqual(
      expect.arrayContaining(['lambdas/reconcile/planner.ts']),
    );
    expect(outward).toEqual([]);
  });
});
