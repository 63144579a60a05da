import * as z from 'zod/mini';
import { GONE_REASONS } from '../../core/ledger/gone';
import type { DocParts, Exactly } from '../../core/ledger/ledger-doc';
import type { KnownUser } from './known';
import { USER_OP, type UserId, type UserOp, type UserState } from './model';
import { USER_ID, userShapes } from './persisted-shapes';
import { USER_PARTS_V3 } from './persisted-v3';

/**
 * What the ledger persists of a user, checked when it is read back. Version 4: an event's op and
 * why a user is gone are named as the actions are (`add`, `delete`; version 3 said `join`,
 * `leave`). Version 3 named who made a user and why one is gone (version 2 said both with empty
 * versions), and had the base say whether the ledger has written.
 */

const GONE = z.discriminatedUnion('by', GONE_REASONS);

const { state, known } = userShapes(GONE);

export const USER_PARTS: DocParts<UserId, UserOp, UserState, KnownUser> = {
  schema: 4,
  id: USER_ID satisfies Exactly<typeof USER_ID, UserId>,
  op: USER_OP,
  state: state satisfies Exactly<typeof state, UserState>,
  known: known satisfies Exactly<typeof known, KnownUser>,
  // Items written before version 4: the same ids and events, their words converted.
  previous: USER_PARTS_V3,
};
