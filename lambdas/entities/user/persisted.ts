import * as z from 'zod/mini';
import type { DocParts, Exactly } from '../../core/ledger/ledger-doc';
import type { KnownUser } from './known';
import type { UserOp, UserState } from './model';
import { KNOWN_FROM_V2, STATE_FROM_V2 } from './persisted-v2';
import type { UserId } from './platform-steps';

/**
 * What the ledger persists of a user, checked when it is read back. Version 3: who made a user
 * and why one is gone are named cases (version 2 said both with empty versions), and the base
 * says whether the ledger has written.
 */

const record = z.discriminatedUnion('origin', [
  z.object({ origin: z.literal('ours'), born: z.string(), at: z.string() }),
  z.object({ origin: z.literal('outside') }),
]);

const gone = z.discriminatedUnion('by', [
  z.object({ by: z.literal('nothing') }),
  z.object({ by: z.literal('leave'), v: z.string() }),
  z.object({ by: z.literal('outside'), after: z.string() }),
]);

const place = z.union([z.object({ user: record }), z.object({ gone })]);

const surePlace = z.union([
  z.object({
    user: z.union([record, z.object({ origin: z.literal('ours-unversioned') })]),
  }),
  z.object({ gone }),
]);

const op = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('join'),
    user: z.object({
      firstName: z.string(),
      lastName: z.string(),
      userTemplateName: z.string(),
      primaryEmailAddr: z.optional(z.string()),
      secondaryEmailAddr: z.optional(z.string()),
      createInCloudConnect: z.optional(z.boolean()),
    }),
  }),
  z.object({ kind: z.literal('leave') }),
]);

const id = z.object({ loginUserId: z.string() });

const state = z.object({ place: z.optional(place) });

const known = z.object({
  place: z.optional(
    z.union([
      surePlace,
      z.object({
        unsure: z.object({ before: z.optional(surePlace), after: z.optional(surePlace) }),
      }),
    ]),
  ),
  base: z.discriminatedUnion('stage', [
    z.object({ stage: z.literal('unseen') }),
    z.object({ stage: z.literal('found'), place }),
    z.object({ stage: z.literal('written'), place }),
    z.object({ stage: z.literal('written-unseen') }),
  ]),
});

export const USER_PARTS: DocParts<UserId, UserOp, UserState, KnownUser> = {
  schema: 3,
  id: id satisfies Exactly<typeof id, UserId>,
  op: op satisfies Exactly<typeof op, UserOp>,
  state: state satisfies Exactly<typeof state, UserState>,
  known: known satisfies Exactly<typeof known, KnownUser>,
  // Items written before version 3: the same ids and events.
  previous: { schema: 2, id, op, state: STATE_FROM_V2, known: KNOWN_FROM_V2 },
};
