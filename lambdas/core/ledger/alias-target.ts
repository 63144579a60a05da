import * as z from 'zod/mini';
import { LedgerDocError } from './ledger-doc';

/**
 * What an alias item keeps (another name of an entity, a previewRecordId, standing for it): the
 * entity's id, with the version of this shape beside its fields. The first shape was the id
 * alone; it still reads. A version before this one ignores the version field.
 */
export const ALIAS_TARGET_VERSION = 1;

const version = z.optional(
  z.literal(ALIAS_TARGET_VERSION, `must be ${ALIAS_TARGET_VERSION} (or absent)`),
);

/** The alias item's text for the entity `id` names (an id is an object of its kind's fields). */
export const aliasTarget = (id: unknown): string =>
  JSON.stringify({ version: ALIAS_TARGET_VERSION, ...(id as object) });

/** The id an alias item keeps, checked by its kind's id schema; names the alias when it does not parse. */
export const parseAliasTarget = <Id>(text: string, id: z.ZodMiniType<Id>, alias: string): Id => {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new LedgerDocError(`the alias item ${alias} is not JSON: delete it`);
  }
  const refuse = (error: z.core.$ZodError): never => {
    const issue = error.issues[0];
    throw new LedgerDocError(
      `the alias item ${alias} does not parse (${(issue?.path ?? []).join('.')}: ${issue?.message ?? 'invalid'}): delete it`,
    );
  };
  const head = z.safeParse(z.object({ version }), raw);
  if (!head.success) return refuse(head.error);
  const parsed = z.safeParse(id, raw);
  return parsed.success ? parsed.data : refuse(parsed.error);
};
