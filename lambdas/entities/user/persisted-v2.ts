import * as z from 'zod/mini';
import type { KnownUser, KnownUserPlace, SureUserPlace, UserBase } from './known';
import type { UserGone, UserPlace, UserState } from './model';

/**
 * The user's parts of a ledger item of version 2, read and converted to the current shape (its ops by persisted-v3.ts).
 * Version 2 said with placeholder versions what version 3 names: a user `born: ''` was made
 * outside the integration (someone else's), `gone: ''` meant nothing keeps a join out, and the
 * ledger's first-schema migration wrote `'0'` for versions it did not know. `written: true` said
 * the ledger had written, which fixes `base`. Items live 400 days, so this stays until none of
 * version 2 can be left.
 */

const place = z.union([
  z.object({ user: z.object({ born: z.string(), at: z.string() }) }),
  z.object({ gone: z.string(), outside: z.optional(z.literal(true)) }),
]);
type PlaceV2 = z.output<typeof place>;

const knownPlace = z.union([
  place,
  z.object({ unsure: z.object({ before: z.optional(place), after: z.optional(place) }) }),
]);

/** Why it is gone; `none`: the versions that meant "no event holds a join out". */
const goneBy = (v: string, outside: boolean, none: readonly string[]): UserGone =>
  none.includes(v)
    ? { by: 'nothing' }
    : outside
      ? { by: 'outside', after: v }
      : { by: 'delete', v };

/** A place of the replay, or a base: version 2 wrote no first-schema versions there. */
const userPlace = (p: PlaceV2): UserPlace =>
  'user' in p
    ? { user: p.user.born === '' ? { origin: 'outside' } : { origin: 'ours', ...p.user } }
    : { gone: goneBy(p.gone, p.outside === true, ['']) };

/**
 * A place the ledger knows: the first-schema migration's user of ours (`'0'`) has no versions,
 * and its gone `'0'`, like `''`, holds no join out.
 */
const surePlace = (p: PlaceV2): SureUserPlace =>
  'user' in p
    ? p.user.born === '0'
      ? { user: { origin: 'ours-unversioned' } }
      : userPlace(p)
    : { gone: goneBy(p.gone, p.outside === true, ['', '0']) };

const knownPlaceOf = (p: z.output<typeof knownPlace>): KnownUserPlace => {
  if (!('unsure' in p)) return surePlace(p);
  const { before, after } = p.unsure;
  return {
    unsure: {
      ...(before === undefined ? {} : { before: surePlace(before) }),
      ...(after === undefined ? {} : { after: surePlace(after) }),
    },
  };
};

const baseOf = (base: PlaceV2 | undefined, written: boolean): UserBase => {
  if (base === undefined) return written ? { stage: 'written-unseen' } : { stage: 'unseen' };
  return { stage: written ? 'written' : 'found', place: userPlace(base) };
};

/** A version 2 snapshot's state, as the current version has it. */
export const STATE_FROM_V2 = z.pipe(
  z.object({ place: z.optional(place) }),
  z.transform(({ place: p }): UserState => (p === undefined ? {} : { place: userPlace(p) })),
);

/** What a version 2 item knew of the platform, as the current version has it. */
export const KNOWN_FROM_V2 = z.pipe(
  z.object({
    place: z.optional(knownPlace),
    base: z.optional(place),
    written: z.optional(z.literal(true)),
  }),
  z.transform(
    (known): KnownUser => ({
      ...(known.place === undefined ? {} : { place: knownPlaceOf(known.place) }),
      base: baseOf(known.base, known.written === true),
    }),
  ),
);
