import type * as z from 'zod/mini';

export type ParseResult<M> =
  | { readonly success: true; readonly message: M }
  | { readonly success: false; readonly error: string };

/** Path of an issue as a producer reads it: `previewRecordData[2].value`. */
const formatPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    const name = String(segment);
    return text === '' ? name : `${text}.${name}`;
  }, '');

/**
 * Formats zod issues as one line naming every bad field. Values are never echoed: they may
 * be personal data and this text ends up in logs and dead-letter attributes.
 */
export const formatIssues = (issues: readonly z.core.$ZodIssue[]): string =>
  issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        const where = formatPath(issue.path);
        const keys = issue.keys.map((k) => `"${k}"`).join(', ');
        return `${where === '' ? '' : `${where}: `}unknown field(s) ${keys}`;
      }
      const where = formatPath(issue.path);
      let text = issue.message;
      // `input` is only present when parsed with `reportInput`; without it a wrong type would
      // read as a missing field. The input itself is never printed.
      if (issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined) {
        text = 'is required';
      }
      return `${where === '' ? '(message)' : where}: ${text}`;
    })
    .join('; ');

/** Parses an already JSON-decoded message against a schema and the spec rules it carries. */
export const parseWith = <M>(schema: z.ZodMiniType<M>, input: unknown): ParseResult<M> => {
  // reportInput lets formatIssues tell a missing field from a wrong type; it prints no input.
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { success: true, message: result.data };
  return { success: false, error: formatIssues(result.error.issues) };
};
