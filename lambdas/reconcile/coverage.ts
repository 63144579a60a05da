/**
 * What a scope covers: the only entities its plan considers and may delete. A records scope
 * covers its campaigns (in its region); a users scope covers the users its rule matches, a rule
 * on the user's own fields as Entra ID's scoping filters and Okta's import rules are: every
 * clause given must match (AND), a clause lists the values it accepts (OR). The language is kept
 * this small so that whether two rules can both match one user is always decided when the config
 * is read; what stays open is a user whose field a clause needs is not known (a user a live event
 * created, whose template no roster row shows), and the plan holds that user's delete.
 */

/** `reconcile.scopes.<name>.covers` of a users scope. */
export interface UserRule {
  /** The part of `loginUserId` after its last `@`, compared without case. */
  readonly loginUserIdDomains?: readonly string[];
  /** `userTemplateName`, exactly. */
  readonly userTemplateNames?: readonly string[];
}

/** What is known of a user: its id always, its template when a roster row shows it. */
export interface KnownUserFields {
  readonly loginUserId: string;
  readonly userTemplateName?: string | undefined;
}

/** Whether a rule matches a user: `unknown` when a clause needs a field that is not known. */
export type Coverage = 'yes' | 'no' | 'unknown';

const domainOf = (loginUserId: string): string | undefined => {
  const at = loginUserId.lastIndexOf('@');
  return at < 0 ? undefined : loginUserId.slice(at + 1).toLowerCase();
};

export const userCoverage = (rule: UserRule, user: KnownUserFields): Coverage => {
  let unknown = false;
  if (rule.loginUserIdDomains !== undefined) {
    const domain = domainOf(user.loginUserId);
    if (domain === undefined) return 'no';
    if (!rule.loginUserIdDomains.some((d) => d.toLowerCase() === domain)) return 'no';
  }
  if (rule.userTemplateNames !== undefined) {
    if (user.userTemplateName === undefined) unknown = true;
    else if (!rule.userTemplateNames.includes(user.userTemplateName)) return 'no';
  }
  return unknown ? 'unknown' : 'yes';
};

/** Two clauses of one field can both match: either accepts anything, or they share a value. */
const clausesMeet = (
  a: readonly string[] | undefined,
  b: readonly string[] | undefined,
  same: (x: string, y: string) => boolean,
): boolean => a === undefined || b === undefined || a.some((x) => b.some((y) => same(x, y)));

/** Some user matches both rules (every field's clauses can agree on one value). */
export const rulesOverlap = (a: UserRule, b: UserRule): boolean =>
  clausesMeet(
    a.loginUserIdDomains,
    b.loginUserIdDomains,
    (x, y) => x.toLowerCase() === y.toLowerCase(),
  ) && clausesMeet(a.userTemplateNames, b.userTemplateNames, (x, y) => x === y);

interface CoveringScope {
  readonly name: string;
  readonly kind: 'users' | 'records';
  readonly covers?: UserRule | undefined;
  readonly campaigns?: readonly string[];
  readonly region?: string | undefined;
}

/**
 * Each pair of scopes of one kind that cover the same entity, as a sentence naming both: two
 * records scopes with a campaign in common (in one region; a scope without a region is in the
 * deployment's, which may be the other's), two users scopes whose rules can both match a user.
 */
export const overlaps = (scopes: readonly CoveringScope[]): string[] => {
  const found: string[] = [];
  scopes.forEach((a, i) => {
    for (const b of scopes.slice(i + 1)) {
      if (a.kind !== b.kind) continue;
      if (a.kind === 'records') {
        const regionsMeet =
          a.region === undefined || b.region === undefined || a.region === b.region;
        const shared = (a.campaigns ?? []).filter((c) => (b.campaigns ?? []).includes(c));
        if (regionsMeet && shared.length > 0) {
          found.push(
            `${b.name}.campaigns: ${shared.map((c) => `"${c}"`).join(', ')} ${shared.length === 1 ? 'is' : 'are'} also covered by scope ${a.name}: each export would delete the other's records`,
          );
        }
      } else if (
        a.covers !== undefined &&
        b.covers !== undefined &&
        rulesOverlap(a.covers, b.covers)
      ) {
        found.push(
          `${b.name}.covers: can match the same users as scope ${a.name}'s covers: each roster would delete the other's users (make the rules exclusive: different loginUserIdDomains or userTemplateNames)`,
        );
      }
    }
  });
  return found;
};
