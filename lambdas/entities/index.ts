import type { AnyEntityKind } from '../core/ledger/entity-kind';
import type { EntityLedger } from '../core/ledger/entity-ledger';
import type { AnyAction, EntityKindName } from '../core/pipeline/action';
import { recordFamily } from './record-family';
import { user } from './user';

/**
 * The entity kinds the ledger orders, for the tools, the local run and the tests. A Lambda
 * bundle imports only its own kind (its entry point passes it), never this list.
 */
export const ENTITY_KINDS: { readonly [K in EntityKindName]: AnyEntityKind } = {
  'record-family': recordFamily,
  user,
};

/** The kind of entity a write action's events belong to; undefined for a read. */
export const entityKindOf = (action: AnyAction): AnyEntityKind | undefined =>
  action.ordering === undefined ? undefined : ENTITY_KINDS[action.ordering.entity];

/** The `ledger` dependency of a handler of `action`: its writes ordered by `ledger` (none for a read). */
export const orderedWith = (
  action: AnyAction,
  ledger: EntityLedger,
): { readonly ledger?: { readonly ledger: EntityLedger; readonly entity: AnyEntityKind } } => {
  const entity = entityKindOf(action);
  return entity === undefined ? {} : { ledger: { ledger, entity } };
};
