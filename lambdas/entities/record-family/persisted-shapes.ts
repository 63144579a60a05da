import * as z from 'zod/mini';
import { RECORD_FIELDS } from './model';

/**
 * The parts of a record family's item that its versions share: a field's value with the version
 * that set it, and a known place (sure, or both candidates of an unanswered call), given how a
 * place reads in that version.
 */

export const versionedField = z.object({
  v: z.string(),
  value: z.union([z.string(), z.number(), z.null()]),
});

export const knownPlaceOf = <P extends z.ZodMiniType>(place: P) =>
  z.union([
    place,
    z.object({
      unsure: z.object({
        before: z.optional(place),
        after: z.optional(place),
        sent: z.array(z.enum(RECORD_FIELDS)),
      }),
    }),
  ]);
