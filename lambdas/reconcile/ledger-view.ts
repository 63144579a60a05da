/**
 * What reconciliation asks of the entity ledger, and nothing more: a port, so the planner does
 * not depend on the ledger's item format. The one file that knows the items is
 * `ledger-item-view.ts`, and tests read items through it too (test/unit/reconcile/).
 */

/** An entity as the ordering model names it: a record family, or a user. */
export type EntityRef =
  | { readonly kind: 'record'; readonly region: string; readonly clientId: string }
  | { readonly kind: 'user'; readonly loginUserId: string };

/**
 * An entity where it stands on the platform: a user, or a family's record in one campaign. A
 * family spans campaigns, and having created its record in one says nothing of the others.
 */
export type PlacedRef =
  | Extract<EntityRef, { kind: 'user' }>
  | (Extract<EntityRef, { kind: 'record' }> & { readonly campaign: string });

export interface LedgerView {
  /** occurredAt (epoch ms) of the newest event the ledger holds for the entity; undefined if none. */
  newestEventAt(entity: EntityRef): Promise<number | undefined>;
  /**
   * The user, or the family's record in that campaign, exists on the platform because this
   * integration created it there (as far as the ledger knows).
   */
  createdByUs(placed: PlacedRef): Promise<boolean>;
  /** loginUserIds of users this integration created and has not deleted (as far as the ledger knows). */
  createdUsers(): AsyncIterable<string>;
}

/** A stable text key of an entity, for maps and reports. */
export const entityKey = (entity: EntityRef): string =>
  entity.kind === 'user'
    ? `user:${entity.loginUserId}`
    : `record:${entity.region}:${entity.clientId}`;
