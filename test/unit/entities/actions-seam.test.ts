/**
 * Where `lambdas/actions/` and `lambdas/entities/` meet, read from the import lines: an action says
 * what its message is for its entity in the entity model's words (it imports a kind's `model.ts`
 * only), and a kind reaches the action modules only to send a step's request (from its
 * `platform-steps.ts` only). The two folders still import each other; this keeps the seam to
 * those two edges until one goes (docs/decisions.md, "actions and entities").
 */
import { describe, expect, it } from 'vitest';
import { relativeImportsOf } from '../../support/relative-imports';

const fromActions = relativeImportsOf('lambdas/actions').filter((i) =>
  i.target.startsWith('lambdas/entities/'),
);
const fromEntities = relativeImportsOf('lambdas/entities').filter((i) =>
  i.target.startsWith('lambdas/actions/'),
);

describe('the seam between actions and entities', () => {
  it('sees imports both ways (the check reads something)', () => {
    // Assess
    expect(fromActions.length).toBeGreaterThan(0);
    expect(fromEntities.length).toBeGreaterThan(0);
  });

  it("has actions import only a kind's model", () => {
    // Assess
    expect(fromActions.filter((i) => !/^lambdas\/entities\/[^/]+\/model$/.test(i.target))).toEqual(
      [],
    );
  });

  it('has a kind import actions only from its platform steps', () => {
    // Assess
    expect(fromEntities.filter((i) => !i.file.endsWith('/platform-steps.ts'))).toEqual([]);
  });
});
