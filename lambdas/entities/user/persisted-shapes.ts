import * as z from 'zod/mini';
import type { UserGone } from './model';

/**
 * The shapes the ledger reads a user's state and its knowledge of the platform with, given how a
 * gone reason reads: version 3 of the item differs from version 4 only there (and in its ops).
 */
export const userShapes = (gone: z.ZodMiniType<UserGone>) => {
  const record = z.discriminatedUnion('origin', [
    z.object({ origin: z.literal('ours'), born: z.string(), at: z.string() }),
    z.object({ origin: z.literal('outside') }),
  ]);
  const place = z.union([z.object({ user: record }), z.object({ gone })]);
  const surePlace = z.union([
    z.object({
      user: z.union([record, z.object({ origin: z.literal('ours-unversioned') })]),
    }),
    z.object({ gone }),
  ]);
  return {
    state: z.object({ place: z.optional(place) }),
    known: z.object({
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
    }),
  };
};

/** How the ledger reads a user's id (the same in every version of the item). */
export const USER_ID = z.object({ loginUserId: z.string() });
