import * as z from 'zod/mini';
import type { DocParts } from '../../core/ledger/ledger-doc';
import type { KnownUser } from './known';
import { USER_FIELDS, type UserGone, type UserId, type UserOp, type UserState } from './model';
import { USER_ID, userShapes } from './persisted-shapes';
import { KNOWN_FROM_V2, STATE_FROM_V2 } from './persisted-v2';

/**
 * The user's parts of a ledger item of version 3 (and the ops of version 2), read and converted
 * to this version's words. Version 3 named a user's ops and one reason it is gone after words of
 * their own: an add was a `join`, a delete a `leave` (`gone: { by: 'leave' }`). The shapes are
 * otherwise version 4's. Items live 400 days, so this stays until none of version 3 can be left.
 */

export const OP_FROM_V3 = z.pipe(
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('join'), user: USER_FIELDS }),
    z.object({ kind: z.literal('leave') }),
  ]),
  z.transform(
    (op): UserOp => (op.kind === 'join' ? { kind: 'add', user: op.user } : { kind: 'delete' }),
  ),
);

const GONE_FROM_V3 = z.pipe(
  z.discriminatedUnion('by', [
    z.object({ by: z.literal('nothing') }),
    z.object({ by: z.literal('leave'), v: z.string() }),
    z.object({ by: z.literal('outside'), after: z.string() }),
  ]),
  z.transform((gone): UserGone => (gone.by === 'leave' ? { by: 'delete', v: gone.v } : gone)),
);

const { state, known } = userShapes(GONE_FROM_V3);

export const USER_PARTS_V3: DocParts<UserId, UserOp, UserState, KnownUser> = {
  schema: 3,
  id: USER_ID,
  op: OP_FROM_V3,
  state,
  known,
  // Items of version 2: the ops of version 3, the rest converted by persisted-v2.ts.
  previous: { schema: 2, id: USER_ID, op: OP_FROM_V3, state: STATE_FROM_V2, known: KNOWN_FROM_V2 },
};
