/**
 * What reconciliation asks of the entity ledger, and nothing more: a port, so the planner does
 * not depend on the ledger's item format. The one file that knows the items is
 * `ledger-item-view.ts`; the planner's property test uses `in-memory-ledger-view.ts`.
 */

/** An entity as the ordering model names it: a record family, or a user. */
export type EntityRef =
  | { readonly kind: 'record'; readonly region: string; readonly clientId: string }
  | { readonly kind: 'user'; readonly loginUserId: string };

export interface LedgerView {
  /** occurredAt (epoch ms) of the newest event the ledger holds for the entity; undefined if none. */
  newestEventAt(entity: EntityRef): Promise<number | undefined>;
  /** The entity exists on the platform because this integration created it (as far as the ledger knows). */
  createdByUs(entity: EntityRef): Promise<boolean>;
  /** loginUserIds of users this integration created and has not deleted (as far as the ledger knows). */
  createdUsers(): AsyncIterable<string>;
}

/** A stable text key of an entity, for maps and reports. */
export const entityKey = (entity: EntityRef): string =>
  entity.kind === 'user'
    ? `user:${entity.loginUserId}`
    : `record:${entity.region}:${entity.clientId}`;
