/**
 * Where `lambdas/actions/` and `lambdas/entities/` meet, read from the import lines. At runtime
 * the graph runs one way, entities → actions: a kind reaches the action modules only to send a
 * step's request (from its `platform-steps.ts` only). An action names what its message is for its
 * entity in the entity model's words, but as types only (`import type`, erased from the bundle),
 * from a kind's `model.ts` only (docs/decisions.md, "actions and entities").
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
    // and tells a runtime import (the steps send action modules) from a type-only one.
    expect(fromEntities.some((i) => !i.typeOnly)).toBe(true);
    expect(fromActions.some((i) => i.typeOnly)).toBe(true);
  });

  it("has actions import only a kind's model", () => {
    // Assess
    expect(fromActions.filter((i) => !/^lambdas\/entities\/[^/]+\/model$/.test(i.target))).toEqual(
      [],
    );
  });

  it('has actions import entities as types only: no runtime edge from actions to entities', () => {
    // Assess
    expect(fromActions.filter((i) => !i.typeOnly)).toEqual([]);
  });

  it('has a kind import actions only from its platform steps', () => {
    // Assess
    expect(fromEntities.filter((i) => !i.file.endsWith('/platform-steps.ts'))).toEqual([]);
  });
});
