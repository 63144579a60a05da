import * as z from 'zod/mini';
import type { Version } from './event-version';

/**
 * Why an entity (or one of its places) is not on the platform, which says which events bring it
 * back. Every kind has these three reasons; a kind may add its own (a record family's transfer).
 */
export type Gone =
  /** Nothing keeps it out: never there as far as the ledger knows (or an add that did not land). */
  | { readonly by: 'nothing' }
  /** The delete `v` removed it, or found it not there: an add newer than `v` brings it again. */
  | { readonly by: 'delete'; readonly v: Version }
  /**
   * A read found it gone where the ledger knew it there, put there by the event `after`:
   * removed outside the integration, which only a newer event undoes.
   */
  | { readonly by: 'outside'; readonly after: Version };

/** How an item stores each reason of `Gone` (a kind unions these with its own). */
export const GONE_REASONS = [
  z.object({ by: z.literal('nothing') }),
  z.object({ by: z.literal('delete'), v: z.string() }),
  z.object({ by: z.literal('outside'), after: z.string() }),
] as const;
