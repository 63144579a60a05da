/**
 * Table rows that carry their own test name, as `[name, row]` pairs for `it.each(…)('%s', …)`:
 * `$name` would cut a long name short in the report, `%s` prints it whole.
 */
export const named = <R extends { readonly name: string }>(
  rows: readonly R[],
): (readonly [string, R])[] => rows.map((row) => [row.name, row] as const);
