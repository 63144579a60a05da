import * as z from 'zod/mini';
import type { DocParts, Exactly } from '../../core/ledger/ledger-doc';
import type { KnownUser } from './known';
import type { UserOp, UserState } from './model';
import type { UserId } from './platform-steps';

/** What the ledger persists of a user, checked when it is read back. */

const place = z.union([
  z.object({ user: z.object({ born: z.string(), at: z.string() }) }),
  z.object({ gone: z.string(), outside: z.optional(z.literal(true)) }),
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
      place,
      z.object({ unsure: z.object({ before: z.optional(place), after: z.optional(place) }) }),
    ]),
  ),
  base: z.optional(place),
  written: z.optional(z.literal(true)),
});

export const USER_PARTS: DocParts<UserId, UserOp, UserState, KnownUser> = {
  id: id satisfies Exactly<typeof id, UserId>,
  op: op satisfies Exactly<typeof op, UserOp>,
  state: state satisfies Exactly<typeof state, UserState>,
  known: known satisfies Exactly<typeof known, KnownUser>,
};
