/**
 * A users scope's part of the plan: the users it considers (its rows, and beyond them only the
 * users it covers), whether each exists and is ours, and the entry of each: an active row's, or
 * a leaving user's. A delete that another scope may own is named for the delete gate to hold.
 */
import { mapLimit } from '../core/entry/concurrency';
import { CATEGORY_TABLE, type PlanEntry } from './categories';
import { entityCorrelation, rowCorrelation, stamp } from './correlation-ids';
import { userCoverage } from './coverage';
import { OWNER_AMBIGUOUS } from './delete-gate';
import type { Candidate, Plan, PlanInputs, PlanPart } from './plan';
import type { EntryReason } from './reconcile-codes';
import type { UsersScope } from './scope';
import type { Snapshot, UserRow } from './snapshot';

type UsersSnapshot = Extract<Snapshot, { kind: 'users' }>;

/** What the platform and the ledger say of one user a users plan considers. */
interface UserFacts {
  readonly existence: { readonly exists: boolean; readonly cloudConnectStatus?: unknown };
  /** The ledger shows this integration created the user (asked only of users that exist). */
  readonly ours: boolean;
}

const userEntity = (loginUserId: string) => `user:${loginUserId}`;

/**
 * The users a plan considers: its rows, and beyond them only the users the scope covers: its
 * rule's, or without a rule the ones its previous roster named. Another roster's users, and
 * users a live event made that no rule of its matches, are not its to judge.
 */
const usersConsidered = async (snapshot: UsersSnapshot, inputs: PlanInputs): Promise<string[]> => {
  const { scope, rows } = snapshot;
  const ids = new Set(rows.map((row) => row.loginUserId));
  const covered = (id: string) =>
    scope.covers === undefined || userCoverage(scope.covers, { loginUserId: id }) !== 'no';
  if (inputs.previous?.keys) {
    for await (const id of inputs.previous.keys()) if (covered(id)) ids.add(id);
  }
  if (scope.covers !== undefined) {
    for await (const id of inputs.ledger.createdUsers()) if (covered(id)) ids.add(id);
  }
  return [...ids];
};

/**
 * The scopes a user this scope would delete may belong to, when that is not this scope alone
 * (undefined: it is): another scope's rule matches it or may (a template no row shows), or this
 * scope's own rule may not (a user beyond its rows). A scope without a rule claims only its own
 * rows, which another plan cannot see: it is never named for another's user.
 */
const ambiguousOwners = (
  scope: UsersScope,
  inputs: PlanInputs,
  loginUserId: string,
  row: UserRow | undefined,
): string[] | undefined => {
  const known = { loginUserId, userTemplateName: row?.userTemplateName };
  const others = Object.values(inputs.scopes ?? {}).flatMap((other) =>
    other.kind === 'users' &&
    other.name !== scope.name &&
    other.covers !== undefined &&
    userCoverage(other.covers, known) !== 'no'
      ? [other.name]
      : [],
  );
  const undecided =
    row === undefined && scope.covers !== undefined && userCoverage(scope.covers, known) !== 'yes';
  return others.length > 0 || undecided ? [scope.name, ...others.sort()] : undefined;
};

/** The repair of a user: its row's correlation id, or the entity's for a user beyond the rows. */
const userCorrelation = (snapshot: UsersSnapshot, entity: string, line: number | undefined) =>
  line === undefined ? entityCorrelation(snapshot, entity) : rowCorrelation(snapshot, line);

/**
 * A delete of the user; named OWNER_AMBIGUOUS with the scopes that may own it when this scope
 * alone does not (deleteGate then holds every delete for a person).
 */
const userDelete = (
  snapshot: UsersSnapshot,
  inputs: PlanInputs,
  id: string,
  row: UserRow | undefined,
  reason?: EntryReason,
): PlanEntry => {
  const entity = userEntity(id);
  const line = row?.line;
  const owners = ambiguousOwners(snapshot.scope, inputs, id, row);
  return {
    entity,
    ...(line === undefined ? {} : { line }),
    category: 'delete',
    ...(owners !== undefined
      ? { reason: OWNER_AMBIGUOUS, scopes: owners }
      : reason === undefined
        ? {}
        : { reason }),
    repair: {
      action: CATEGORY_TABLE.delete.repairs.users,
      message: { loginUserId: id, ...stamp(snapshot, userCorrelation(snapshot, entity, line)) },
    },
  };
};

/**
 * An active row: a create when the user does not exist; a conflict when it exists but is not
 * ours, or is not in the contact-center instance the row asks for; else in sync.
 */
const activeRowEntry = (
  snapshot: UsersSnapshot,
  row: UserRow,
  message: NonNullable<UserRow['message']>,
  { existence, ours }: UserFacts,
): PlanEntry => {
  const entity = userEntity(row.loginUserId);
  const line = row.line;
  if (!existence.exists) {
    return {
      entity,
      line,
      category: 'create',
      repair: {
        action: CATEGORY_TABLE.create.repairs.users,
        message: { ...message, ...stamp(snapshot, rowCorrelation(snapshot, line)) },
      },
    };
  }
  if (!ours) return { entity, line, category: 'conflict', reason: 'USER_EXISTS_NOT_OURS' };
  if (
    message.createInCloudConnect === true &&
    'cloudConnectStatus' in existence &&
    existence.cloudConnectStatus !== 'EXISTS'
  ) {
    return { entity, line, category: 'conflict', reason: 'NOT_IN_CONTACT_CENTER_INSTANCE' };
  }
  return { entity, line, category: 'in-sync' };
};

/**
 * A user without an active row (a leaver's row, or none). Gone: in sync for a row, nothing
 * otherwise. Beyond the rows where absence is not leaving: skipped if ours, else unmanaged.
 * Leaving: a delete if ours (or the scope deletes what is not), else unmanaged.
 */
const leavingUserEntry = (
  snapshot: UsersSnapshot,
  inputs: PlanInputs,
  id: string,
  row: UserRow | undefined,
  { existence, ours }: UserFacts,
): PlanEntry | undefined => {
  const { scope } = snapshot;
  const entity = userEntity(id);
  const at = row === undefined ? {} : { line: row.line };
  // A leaver already gone, or an old candidate that is gone: nothing to do.
  if (!existence.exists)
    return row === undefined ? undefined : { entity, ...at, category: 'in-sync' };
  const leaves = row !== undefined || scope.absentMeansLeave;
  if (!leaves) {
    return ours
      ? { entity, category: 'skipped', reason: 'ABSENT_NOT_LEAVE' }
      : { entity, category: 'unmanaged', reason: 'NOT_IN_EXPORT' };
  }
  if (ours) return userDelete(snapshot, inputs, id, row);
  if (scope.deleteUnmanaged)
    return userDelete(snapshot, inputs, id, row, 'UNMANAGED_DELETE_ALLOWED');
  return {
    entity,
    ...at,
    category: 'unmanaged',
    reason: row?.leaver ? 'LEAVER_NOT_CREATED_BY_US' : 'NOT_CREATED_BY_US',
  };
};

/** What the platform says of each user, and for one that exists, whether the ledger says ours. */
const userFacts = (ids: readonly string[], inputs: PlanInputs): Promise<UserFacts[]> =>
  mapLimit(ids, inputs.concurrency ?? 4, async (id): Promise<UserFacts> => {
    const existence = await inputs.reader.userExists(id);
    const ours = existence.exists
      ? await inputs.ledger.createdByUs({ kind: 'user', loginUserId: id })
      : false;
    return { existence, ours };
  });

/** What a users plan reports besides its entries: how many it checked, and what it cannot see. */
const usersFacts = (snapshot: UsersSnapshot, checked: number): Pick<Plan, 'candidates'> => ({
  candidates: {
    checked,
    outOfReach:
      snapshot.scope.covers === undefined
        ? "users this integration never knew (not in this export or the previous snapshot) cannot be found: the platform has no list call; the ledger's other users are not this scope's to judge (it has no covers rule)"
        : 'users this integration never knew (not in this export, the previous snapshot or the ledger) cannot be found: the platform has no list call',
  },
});

/**
 * A users scope: find the users it considers, ask the platform whether each exists and the
 * ledger whether each is ours, then the entry of each: an active row's, or a leaving user's.
 */
export const planUsers = async (snapshot: UsersSnapshot, inputs: PlanInputs): Promise<PlanPart> => {
  const { rows } = snapshot;
  const byId = new Map<string, UserRow>(rows.map((row) => [row.loginUserId, row]));
  const all = await usersConsidered(snapshot, inputs);
  const found = await userFacts(all, inputs);
  const candidates = all.flatMap((id, index): Candidate[] => {
    const facts = found[index] ?? { existence: { exists: false }, ours: false };
    const row = byId.get(id);
    const entry =
      row !== undefined && !row.leaver && row.message !== undefined
        ? activeRowEntry(snapshot, row, row.message, facts)
        : leavingUserEntry(snapshot, inputs, id, row, facts);
    return entry === undefined ? [] : [{ ref: { kind: 'user', loginUserId: id }, entry }];
  });
  const existing = found.filter((f) => f.existence.exists).length;
  return {
    candidates,
    scopeSize: Math.max(rows.length, existing),
    facts: usersFacts(snapshot, all.length),
  };
};
