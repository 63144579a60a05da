/**
 * Where `lambdas/actions/` and `lambdas/entities/` meet, read from the import lines. At runtime
 * the graph runs one way, entities → actions: a kind reaches the action modules only to send a
 * step's request: its read from its `read-step.ts`, a write from its operation's module under
 * `operations/`, which sends its own action only. An action names what its message is for its
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

/**
 * The action each record-family operation's module sends: named by its op (`RecordOp`), whose
 * words differ from the action's where a user's do not (operations/add.ts sends add-user).
 */
const RECORD_OPERATION_ACTIONS: Readonly<Record<string, string>> = {
  'lambdas/entities/record-family/operations/upsert.ts': 'add-or-update-campaign-record',
  'lambdas/entities/record-family/operations/status.ts': 'change-campaign-record-status',
  'lambdas/entities/record-family/operations/transfer.ts': 'transfer-campaign-record',
  'lambdas/entities/record-family/operations/delete.ts': 'delete-campaign-record',
};

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

  it('has a kind import actions only from its read step or operations', () => {
    // Assess
    expect(
      fromEntities.filter((i) => !/\/read-step\.ts$|\/operations\/[^/]+\.ts$/.test(i.file)),
    ).toEqual([]);
  });

  it("has an operation's module send only its own action (operations/delete.ts: delete-<kind>)", () => {
    // Prepare
    const ofOperations = fromEntities.filter((i) => i.file.includes('/operations/'));

    // Act
    const others = ofOperations.filter((i) => {
      const action = i.target.slice(i.target.lastIndexOf('/') + 1);
      const own = RECORD_OPERATION_ACTIONS[i.file];
      if (own !== undefined) return action !== own;
      const operation = i.file.slice(i.file.lastIndexOf('/') + 1, -'.ts'.length);
      return !action.startsWith(`${operation}-`);
    });

    // Assess
    expect(ofOperations.length).toBeGreaterThan(0);
    expect(others).toEqual([]);
  });

  it("has each record operation's module send its action (named by the op, not the action)", () => {
    // Act
    const sent = Object.keys(RECORD_OPERATION_ACTIONS).map((file) =>
      fromEntities
        .filter((i) => i.file === file && !i.typeOnly)
        .map((i) => i.target.slice(i.target.lastIndexOf('/') + 1)),
    );

    // Assess
    expect(sent).toEqual(Object.values(RECORD_OPERATION_ACTIONS).map((action) => [action]));
  });
});
