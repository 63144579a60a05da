import { parseScopes, type ReconcileScope } from '../../lambdas/reconcile/scope';

/** A test's `reconcile.scopes`, parsed as the stack parses them; a mistyped one fails naming the field. */
export const scopesOf = (
  config: Record<string, unknown>,
): Readonly<Record<string, ReconcileScope>> => {
  const parsed = parseScopes(config);
  if (!parsed.success) throw new Error(parsed.error);
  return parsed.scopes;
};
