/**
 * Every code reconciliation decides, in one table each, as `lambdas/core/pipeline/outcome.ts` is for the
 * live path: why an entity is in its category (`EntryReason`), and why a snapshot, a plan or an
 * apply is refused (`RefusalCode`). A code missing here is not a code: the plan entry, the
 * refusal errors and the run history will not take it; docs/operations.md names only these
 * (test/unit/reconcile/reconcile-codes.test.ts).
 */

/** Why an entity of a plan is where it is; each says what a person reads in the report. */
export const ENTRY_REASONS = {
  // Unmanaged: on the platform, never ours, and reported.
  NOT_CREATED_BY_US: 'on the platform, beyond the export, and never created by this integration',
  LEAVER_NOT_CREATED_BY_US: 'a leaver in the roster whose account this integration never created',
  NOT_IN_EXPORT: 'a user the scope covers, absent from the roster, never ours',
  // Conflicts.
  USER_EXISTS_NOT_OURS: 'a roster user who exists but was never created by this integration',
  DUPLICATE_CLIENT_ID: 'a clientId held by two records of one campaign',
  NOT_IN_CONTACT_CENTER_INSTANCE: 'a user who should be in the contact-center instance and is not',
  // Skipped.
  ABSENT_NOT_LEAVE:
    'a user of ours missing from the roster, and the scope does not read that as leaving',
  NEWER_EVENT: 'the ledger holds a live event newer than the export: it decided the entity',
  SWEEP_INCOMPLETE: "the campaign's sweep is not shown complete, so no delete is planned from it",
  KEPT_ITEM_UNSENDABLE: 'an item the update would keep is one the message contract refuses',
  // Deletes that say more than "ours and not wanted".
  UNMANAGED_DELETE_ALLOWED: 'never ours, deleted because the scope sets deleteUnmanaged',
  WORKED_BY_AGENT: 'a record an agent has worked: every delete waits for a person',
  OWNER_AMBIGUOUS:
    'a user whose scope cannot be decided (another scope may cover it, or a field its rule needs is unknown): every delete waits for a person, the scopes named',
} as const;
export type EntryReason = keyof typeof ENTRY_REASONS;

/** Why nothing was planned, or a plan was not applied; printed as `Refused (<CODE>): …`. */
export const REFUSAL_CODES = {
  // The snapshot (reconcile plan, the stack's plan step).
  MANIFEST: 'the manifest is not JSON or a field is wrong',
  UNKNOWN_SCOPE: 'the manifest names a scope this deployment does not configure',
  SCOPE_KIND: "the manifest's kind is not its scope's",
  EXPORT_MISSING: 'the export the manifest names cannot be read',
  HASH_MISMATCH: "the export's SHA-256 is not the manifest's",
  COUNT_MISMATCH: "the export's row count is not the manifest's",
  EMPTY: 'the export holds no rows',
  FUTURE: 'exportedAt is in the future',
  INVALID_ROWS: 'rows that are not valid, or a header that cannot be mapped',
  DUPLICATE_KEYS: 'a key appears on more than one row',
  OUT_OF_SCOPE:
    'rows the scope does not cover (a campaign not its own, a user its rule does not match)',
  SUPERSEDED: 'the scope planned or applied a newer snapshot',
  LEDGER_ITEM_INVALID: 'a ledger item does not parse',
  PLATFORM_READ: 'the platform could not be read',
  SWEEP_TOO_LONG: 'a records sweep does not fit one invocation of the stack',
  // The plan file and its apply (reconcile apply).
  PLAN_UNREADABLE: 'not a plan file, or a damaged one',
  PLAN_INCOMPLETE: 'the plan file holds fewer or more entries than its header says',
  PLAN_ALTERED: 'the plan file was edited since it was written (its checks or its digest)',
  NOT_RECORDED: "the plan's run is not in this deployment's run history",
  STALE_PLAN: 'the plan is older than reconcile.planMaxAgeHours',
  DELETE_COUNT: "--allow-deletes does not name the plan's delete count",
} as const;
export type RefusalCode = keyof typeof REFUSAL_CODES;
