/**
 * Where `lambdas/actions/` and `lambdas/entities/` meet, read from the import lines. At runtime
 * the graph runs one way, entities → actions: a kind reaches the action modules only to send a
 * step's request (from its `platform-steps.ts`, or where a kind keeps a step's call apart: its
 * `read-step.ts`, and each operation's module under `operations/`, which sends its own action
 * only). An action names what its message is for its
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

  it('has a kind import actions only from its platform steps, read step or operations', () => {
    // Assess
    expect(
      fromEntities.filter(
        (i) => !/\/(platform-steps|read-step)\.ts$|\/operations\/[^/]+\.ts$/.test(i.file),
      ),
    ).toEqual([]);
  });

  it("has an operation's module send only its own action (operations/delete.ts: delete-<kind>)", () => {
    // Prepare
    const ofOperations = fromEntities.filter((i) => i.file.includes('/operations/'));

    // Act
    const others = ofOperations.filter((i) => {
      const operation = i.file.slice(i.file.lastIndexOf('/') + 1, -'.ts'.length);
      return !i.target.slice(i.target.lastIndexOf('/') + 1).startsWith(`${operation}-`);
    });

    // Assess
    expect(ofOperations.length).toBeGreaterThan(0);
    expect(others).toEqual([]);
  });
});
