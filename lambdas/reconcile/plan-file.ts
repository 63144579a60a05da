/**
 * A plan as a file: JSON Lines, the plan's header first (with its entry count) and one entry a
 * line, so a plan of a million records streams. Read back, it is checked: its version, that it
 * is whole, that its header's counts and delete gate agree with its entries (`apply` gates on
 * them), and every repair message again against its action's schema, so an edited plan cannot
 * send what the plan never showed.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { parseMessage } from '../actions';
import { formatIssues } from '../messages/parse';
import {
  CATEGORIES,
  type Category,
  CHANGES,
  isRemoval,
  type PlanEntry,
  REPAIR_ORDER,
  repairActionOf,
  type ScopeKind,
  scopeKind,
} from './categories';
import { OWNER_AMBIGUOUS, WORKED_BY_AGENT } from './delete-gate';
import type { Plan } from './plan';
import type { RefusalCode } from './reconcile-codes';
import { Refusal } from './refusal';

export const PLAN_FILE_VERSION = 1;

const header = z.looseObject({
  version: z.literal(PLAN_FILE_VERSION, `must be ${PLAN_FILE_VERSION}`),
  planId: z.string(),
  createdAt: z.iso.datetime(),
  scope: z.string(),
  kind: scopeKind,
  snapshot: z.looseObject({ id: z.string(), exportedAt: z.iso.datetime(), sha256: z.string() }),
  // Partial: a category added later is absent from an older plan file of this version, whose
  // planner could not put an entry in it (0; `checkHeader` holds the entries to that).
  counts: z.partialRecord(z.enum(CATEGORIES), z.int()),
  deletes: z.looseObject({
    count: z.int(),
    gate: z.int(),
    held: z.boolean(),
    heldBecause: z.array(z.string()),
  }),
  entryCount: z.int(),
});

const entry = z.looseObject({
  entity: z.string(),
  category: z.enum(CATEGORIES, `must be one of ${CATEGORIES.join(', ')}`),
  repair: z.optional(
    z.strictObject({
      action: z.enum(REPAIR_ORDER),
      message: z.record(z.string(), z.unknown()),
    }),
  ),
});

/** The plan file cannot be used; the message says why, the code which kind of refusal it is. */
export class PlanFileError extends Refusal<Extract<RefusalCode, `PLAN_${string}`>> {
  override readonly name = 'PlanFileError';
  readonly category = 'permanent';
  constructor(
    message: string,
    /** PLAN_UNREADABLE, PLAN_INCOMPLETE, or PLAN_ALTERED (its checks disagree with its header). */
    readonly code: Extract<RefusalCode, `PLAN_${string}`> = 'PLAN_UNREADABLE',
  ) {
    super(message);
  }
}

/**
 * The plan file's SHA-256, noted with its run when it is written: `apply` reads the gates and the
 * repairs from the file, so a file changed since (a gate raised, a hold cleared, an entry added
 * with its counts) must not pass as the plan a person reviewed or the stack made.
 */
export const planDigest = (text: string): string => createHash('sha256').update(text).digest('hex');

export const serializePlan = (plan: Plan): string => {
  const { entries, ...rest } = plan;
  const lines = [
    JSON.stringify({ ...rest, entryCount: entries.length }),
    ...entries.map((e) => JSON.stringify(e)),
  ];
  return `${lines.join('\n')}\n`;
};

export const parsePlan = (text: string, where = 'plan'): Plan => {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const [first, ...rest] = lines;
  const decode = (line: string, n: number): unknown => {
    try {
      return JSON.parse(line);
    } catch {
      throw new PlanFileError(`${where}: line ${n} is not JSON: not a plan file, or a damaged one`);
    }
  };
  // reportInput tells a missing field from a wrong type in formatIssues; it prints no value.
  const head = z.safeParse(header, first === undefined ? undefined : decode(first, 1), {
    reportInput: true,
  });
  if (!head.success) {
    throw new PlanFileError(
      `${where}: not a plan file of version ${PLAN_FILE_VERSION}: ${formatIssues(head.error.issues)}`,
    );
  }
  if (head.data.entryCount !== rest.length) {
    throw new PlanFileError(
      `${where}: holds ${rest.length} entries, its header says ${head.data.entryCount}: the file is incomplete`,
      'PLAN_INCOMPLETE',
    );
  }
  const entries = rest.map((line, index): PlanEntry => {
    const parsed = z.safeParse(entry, decode(line, index + 2), { reportInput: true });
    if (!parsed.success) {
      throw new PlanFileError(
        `${where}: line ${index + 2} is not a plan entry: ${formatIssues(parsed.error.issues)}`,
      );
    }
    const repair = parsed.data.repair;
    if (repair !== undefined) {
      const message = parseMessage(repair.action, repair.message);
      if (!message.success) {
        throw new PlanFileError(
          `${where}: line ${index + 2}: not a valid ${repair.action} message: ${message.error}`,
        );
      }
    }
    return parsed.data as unknown as PlanEntry;
  });
  const { entryCount: _n, ...plan } = head.data;
  checkHeader(plan, entries, where);
  checkRepairs(entries, { kind: plan.kind, exportedAt: plan.snapshot.exportedAt }, where);
  const counts = Object.fromEntries(CATEGORIES.map((c) => [c, plan.counts[c] ?? 0])) as Record<
    Category,
    number
  >;
  return { ...(plan as unknown as Omit<Plan, 'entries'>), counts, entries };
};

/**
 * The header against the entries: `apply` decides from the header whether the deletes go, so a
 * header edited to hide deletes, or to release held ones, must not pass as the plan.
 */
const checkHeader = (
  head: Pick<z.infer<typeof header>, 'counts' | 'deletes'>,
  entries: readonly PlanEntry[],
  where: string,
): void => {
  const refuse = (field: string, problem: string): never => {
    throw new PlanFileError(
      `${where}: ${field}: the header says ${problem}: an edited or damaged plan`,
      'PLAN_ALTERED',
    );
  };
  const found = new Map<string, number>();
  for (const e of entries) found.set(e.category, (found.get(e.category) ?? 0) + 1);
  for (const category of CATEGORIES) {
    const says = head.counts[category] ?? 0;
    const holds = found.get(category) ?? 0;
    if (says !== holds) refuse(`counts.${category}`, `${says}, the entries hold ${holds}`);
  }
  const { count, gate, held, heldBecause } = head.deletes;
  const deletes = entries.filter((e) => isRemoval(e.category)).length;
  if (count !== deletes) refuse('deletes.count', `${count}, the entries hold ${deletes}`);
  // As `deleteGate` decides: deletes beyond the gate are held, and held means a reason is given.
  if (count > gate && !held)
    refuse('deletes.held', `false, yet ${count} deletes exceed the gate of ${gate}`);
  for (const [reason, one, many] of [
    [WORKED_BY_AGENT, 'a record agents have worked', 'records agents have worked'],
    [
      OWNER_AMBIGUOUS,
      'a user whose scope cannot be decided',
      'users whose scopes cannot be decided',
    ],
  ] as const) {
    const n = entries.filter((e) => isRemoval(e.category) && e.reason === reason).length;
    if (n > 0 && !held) {
      refuse(
        'deletes.held',
        n === 1
          ? `false, yet 1 of the deletes is ${reason} (${one})`
          : `false, yet ${n} of the deletes are ${reason} (${many})`,
      );
    }
  }
  if (held !== (count > 0 && heldBecause.length > 0)) {
    refuse(
      'deletes.held',
      `${held}, with ${count} deletes and ${heldBecause.length} reason(s) in deletes.heldBecause`,
    );
  }
};

/**
 * Each repair against its entry: apply gates by category, so a repair must be its category's for
 * the plan's kind (a delete must not travel as another one), and it keeps the export's time,
 * which orders it against live events.
 */
const checkRepairs = (
  entries: readonly PlanEntry[],
  { kind, exportedAt }: { readonly kind: ScopeKind; readonly exportedAt: string },
  where: string,
): void => {
  entries.forEach(({ category, repair }, index) => {
    if (repair === undefined) return;
    const at = `${where}: line ${index + 2}`;
    if (!CHANGES.includes(category)) {
      throw new PlanFileError(`${at}: repair: a ${category} entry carries none`, 'PLAN_ALTERED');
    }
    if (repair.action !== repairActionOf(category, kind)) {
      throw new PlanFileError(
        `${at}: repair.action: ${repair.action} in a ${category} entry of a ${kind} plan: an edited or damaged plan`,
        'PLAN_ALTERED',
      );
    }
    if (Date.parse(String(repair.message.occurredAt)) !== Date.parse(exportedAt)) {
      throw new PlanFileError(
        `${at}: repair.message.occurredAt: not the export's time ${exportedAt}: an edited or damaged plan`,
        'PLAN_ALTERED',
      );
    }
  });
};
