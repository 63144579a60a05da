/**
 * A reconciliation scope: what a snapshot may cover and how far its plan may go on its own.
 * Defined in the deployment config (`reconcile.scopes.<name>`), never in the manifest: a
 * producer names a scope, it cannot widen what a drop may delete.
 */
import * as z from 'zod/mini';
import { PLATFORM_REGIONS } from '../core/platform/regions';
import { formatIssues } from '../messages/parse';
import { overlaps } from './coverage';

export const SCOPE_DEFAULTS = {
  splitKeys: ['Id'],
  statusColumn: 'status',
  leaverStatuses: ['terminated'],
  absentMeansLeave: false,
  deleteUnmanaged: false,
  deleteGate: { count: 25, percent: 2 },
  shrinkGuardPercent: 10,
  apply: 'plan-only',
  alarmAfterDays: 2,
} as const;

const name = z
  .string()
  .check(
    z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"'),
  );
const nonEmptyList = z
  .array(z.string().check(z.minLength(1, 'must not be empty')))
  .check(z.minLength(1, 'must list at least one'));

const policy = {
  /** Plans that stay within the gates are applied by the run itself, or only written (and alarmed). */
  apply: z._default(
    z.enum(['auto', 'plan-only'], 'must be "auto" or "plan-only"'),
    SCOPE_DEFAULTS.apply,
  ),
  /** Delete what the platform holds of ours beyond the export, even if never ours (default: report it). */
  deleteUnmanaged: z._default(z.boolean('must be true or false'), SCOPE_DEFAULTS.deleteUnmanaged),
  /** Deletes beyond max(count, percent % of the scope) hold the whole delete set. */
  deleteGate: z._default(
    z.strictObject({
      count: z.int('must be an integer').check(z.minimum(0, 'must be at least 0')),
      percent: z
        .number('must be a number')
        .check(z.minimum(0, 'must be at least 0'), z.maximum(100, 'must be at most 100')),
    }),
    { ...SCOPE_DEFAULTS.deleteGate },
  ),
  /** An export this much smaller than the previous snapshot holds every delete. */
  shrinkGuardPercent: z._default(
    z
      .number('must be a number')
      .check(z.minimum(0, 'must be at least 0'), z.maximum(100, 'must be at most 100')),
    SCOPE_DEFAULTS.shrinkGuardPercent,
  ),
  /** The "no successful run" alarm fires after this many days. */
  alarmAfterDays: z._default(
    z
      .int('must be an integer')
      .check(z.minimum(1, 'must be at least 1'), z.maximum(90, 'must be at most 90')),
    SCOPE_DEFAULTS.alarmAfterDays,
  ),
};

const recordsScope = z.strictObject({
  kind: z.literal('records', 'must be "records" or "users"'),
  campaigns: nonEmptyList,
  /** Region of the campaigns. @default the deployment's campaign region */
  region: z.optional(z.enum(PLATFORM_REGIONS, `must be one of ${PLATFORM_REGIONS.join(', ')}`)),
  /** Data keys a full search slice is split on, in turn (ranges of their values). */
  splitKeys: z._default(nonEmptyList, [...SCOPE_DEFAULTS.splitKeys]),
  ...policy,
});

const domain = z
  .string()
  .check(
    z.regex(
      /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/,
      'must be a domain such as example.com (no "@")',
    ),
  );

/** Which users a users scope covers (coverage.ts): every clause given must match. */
const userRule = z
  .strictObject({
    /** The part of loginUserId after its last "@" (any case). */
    loginUserIdDomains: z.optional(z.array(domain).check(z.minLength(1, 'must list at least one'))),
    /** userTemplateName, exactly. */
    userTemplateNames: z.optional(nonEmptyList),
  })
  .check(
    z.refine(
      (rule) => rule.loginUserIdDomains !== undefined || rule.userTemplateNames !== undefined,
      'must give loginUserIdDomains, userTemplateNames or both',
    ),
  );

const usersScope = z.strictObject({
  kind: z.literal('users', 'must be "records" or "users"'),
  /**
   * The users this scope covers: the only ones its plan considers beyond its own rows, and may
   * delete without a person. @default none: the scope covers only the users its rosters name,
   * and `absentMeansLeave` is refused
   */
  covers: z.optional(userRule),
  /** The roster column that marks leavers. */
  statusColumn: z._default(
    z.string().check(z.minLength(1, 'must not be empty')),
    SCOPE_DEFAULTS.statusColumn,
  ),
  leaverStatuses: z._default(nonEmptyList, [...SCOPE_DEFAULTS.leaverStatuses]),
  /** A user of ours missing from the export has left (opt-in). */
  absentMeansLeave: z._default(z.boolean('must be true or false'), SCOPE_DEFAULTS.absentMeansLeave),
  ...policy,
});

export const scopeSchema = z.discriminatedUnion('kind', [recordsScope, usersScope]);

/**
 * A users scope that reads absence as leaving must say which users it covers: without a rule it
 * cannot know that a user absent from its roster is its own (another roster's, one a live event
 * made), and would delete them.
 */
const absentNeedsCovers = (scopes: Readonly<Record<string, z.infer<typeof scopeSchema>>>) =>
  Object.entries(scopes).flatMap(([key, scope]) =>
    scope.kind === 'users' && scope.absentMeansLeave && scope.covers === undefined
      ? [
          `${key}.covers: is required when absentMeansLeave is true: say which users this roster speaks for (loginUserIdDomains, userTemplateNames), or a user absent from it that another roster or a live event made would be deleted`,
        ]
      : [],
  );
export const scopesSchema = z.record(name, scopeSchema);

export type RecordsScope = z.infer<typeof recordsScope> & { readonly name: string };
export type UsersScope = z.infer<typeof usersScope> & { readonly name: string };
export type ReconcileScope = RecordsScope | UsersScope;

export type ScopesResult =
  | { readonly success: true; readonly scopes: Readonly<Record<string, ReconcileScope>> }
  | { readonly success: false; readonly error: string };

/** Parses `reconcile.scopes` (config or the function's environment); errors name each field. */
export const parseScopes = (input: unknown): ScopesResult => {
  const parsed = z.safeParse(scopesSchema, input, { reportInput: true });
  if (!parsed.success) return { success: false, error: formatIssues(parsed.error.issues) };
  const scopes = Object.fromEntries(
    Object.entries(parsed.data).map(([key, scope]) => [key, { ...scope, name: key }]),
  );
  const problems = [...absentNeedsCovers(parsed.data), ...overlaps(Object.values(scopes))];
  if (problems.length > 0) return { success: false, error: problems.join('\n') };
  return { success: true, scopes };
};
