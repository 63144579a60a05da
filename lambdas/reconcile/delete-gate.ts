/**
 * The delete gate: whether a plan's deletes may go with the rest, or wait whole for a person to
 * name their count (`--allow-deletes <count>`), and the reasons it gives for holding them.
 */
import { isRemoval, type PlanEntry } from './categories';
import type { Plan, PreviousSnapshot } from './plan';
import type { EntryReason } from './reconcile-codes';
import type { Snapshot } from './snapshot';

/** The reason of a delete whose record an agent has worked (`workAttempts` > 0). */
export const WORKED_BY_AGENT: Extract<EntryReason, 'WORKED_BY_AGENT'> = 'WORKED_BY_AGENT';

/** The reason of a delete of a user another scope covers or may cover (the entry names them). */
export const OWNER_AMBIGUOUS: Extract<EntryReason, 'OWNER_AMBIGUOUS'> = 'OWNER_AMBIGUOUS';

const ofTheDeletes = (n: number) => `${n} of the deletes ${n === 1 ? 'is' : 'are'}`;

/**
 * Why the deletes wait when `worked` of them are WORKED_BY_AGENT: one text whether the plan saw
 * the attempts or the stack's auto-apply found them when it searched again.
 */
export const workedHoldReason = (worked: number): string =>
  `${ofTheDeletes(worked)} of ${worked === 1 ? 'a record' : 'records'} agents have worked (their attempts and work codes go with them)`;

/** Why the deletes wait when some are OWNER_AMBIGUOUS: the first one and its scopes named. */
export const ambiguousHoldReason = (ambiguous: readonly PlanEntry[]): string => {
  const [first] = ambiguous;
  const n = ambiguous.length;
  return `${ofTheDeletes(n)} of ${n === 1 ? 'a user whose scope' : 'users whose scopes'} cannot be decided, never guessed (${first?.entity}: scopes ${first?.scopes?.join(', ')}${n > 1 ? '; the rest in the report' : ''})`;
};

/**
 * Whether the deletes may go with the rest, or wait whole for a person to name their count:
 * more than the gate, an export that shrank, or any delete of a record an agent has worked.
 */
export const deleteGate = (
  snapshot: Snapshot,
  count: number,
  scopeSize: number,
  previous: PreviousSnapshot | undefined,
  worked = 0,
  ambiguous: readonly PlanEntry[] = [],
): Plan['deletes'] => {
  const { deleteGate: gate, shrinkGuardPercent } = snapshot.scope;
  const limit = Math.max(gate.count, Math.floor((gate.percent / 100) * scopeSize));
  const heldBecause: string[] = [];
  if (count > limit) {
    heldBecause.push(
      `${count} deletes exceed the gate max(${gate.count}, ${gate.percent} % of ${scopeSize}) = ${limit}`,
    );
  }
  const rows = snapshot.manifest.rowCount;
  if (previous !== undefined && rows < previous.rowCount * (1 - shrinkGuardPercent / 100)) {
    heldBecause.push(
      `the export has ${rows} rows, the previous snapshot ${previous.rowCount}: it shrank by more than ${shrinkGuardPercent} %`,
    );
  }
  if (worked > 0) heldBecause.push(workedHoldReason(worked));
  if (ambiguous.length > 0) heldBecause.push(ambiguousHoldReason(ambiguous));
  return {
    count,
    gate: limit,
    scopeSize,
    held: count > 0 && heldBecause.length > 0,
    heldBecause: count > 0 ? heldBecause : [],
  };
};

/** The gate of a plan's entries: their deletes, and among them the worked and ambiguous ones. */
export const gateOfEntries = (
  snapshot: Snapshot,
  entries: readonly PlanEntry[],
  scopeSize: number,
  previous: PreviousSnapshot | undefined,
): Plan['deletes'] => {
  const deletes = entries.filter((e) => isRemoval(e.category));
  return deleteGate(
    snapshot,
    deletes.length,
    scopeSize,
    previous,
    deletes.filter((e) => e.reason === WORKED_BY_AGENT).length,
    deletes.filter((e) => e.reason === OWNER_AMBIGUOUS),
  );
};
