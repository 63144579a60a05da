/**
 * The run history's items as stored (a scope's state, one run: kept 400 days), parsed on every
 * read. Each item carries the version of its shape; an item written before versions were kept
 * (the first shape, the same fields without `version`) reads as version 1. Fields a later shape
 * adds pass through untouched, so a read, change and write back keeps them.
 */
import * as z from 'zod/mini';
import { formatIssues } from '../messages/parse';
import { REFUSAL_CODES, type RefusalCode } from './reconcile-codes';
import type { RunRecord, RunStatus, ScopeState } from './run-history';

export const RUN_HISTORY_ITEM_VERSION = 1;

const version = z.optional(
  z.literal(RUN_HISTORY_ITEM_VERSION, `must be ${RUN_HISTORY_ITEM_VERSION} (or absent)`),
);

const mark = {
  exportedAt: z.string(),
  rowCount: z.number(),
  sha256: z.string(),
  planLocation: z.optional(z.string()),
};

const scopeState = z.looseObject({
  version,
  newest: z.optional(z.looseObject(mark)),
  applied: z.optional(z.looseObject({ ...mark, appliedAt: z.string(), approvedBy: z.string() })),
  lastSuccessAt: z.optional(z.string()),
});

const RUN_STATUSES = [
  'refused',
  'no-changes',
  'planned',
  'held',
  'applied',
  'applied-deletes-held',
] as const satisfies readonly RunStatus[];

const runRecord = z.looseObject({
  version,
  runId: z.string(),
  scope: z.string(),
  status: z.enum(RUN_STATUSES),
  at: z.string(),
  counts: z.optional(z.record(z.string(), z.number())),
  deletesHeld: z.optional(z.number()),
  approvedBy: z.optional(z.string()),
  planLocation: z.optional(z.string()),
  planSha256: z.optional(z.string()),
  reportLocation: z.optional(z.string()),
  refusal: z.optional(
    z.looseObject({
      code: z.enum(Object.keys(REFUSAL_CODES) as [RefusalCode, ...RefusalCode[]]),
      message: z.string(),
    }),
  ),
  warnings: z.optional(z.array(z.string())),
});

const parseItem = <T>(schema: z.ZodMiniType<T>, text: string, key: string): T => {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`the run history item ${key} is not JSON: repair or delete it`);
  }
  const parsed = z.safeParse(schema, raw, { reportInput: true });
  if (!parsed.success) {
    throw new Error(
      `the run history item ${key} does not parse (${formatIssues(parsed.error.issues)}): repair or delete it`,
    );
  }
  return parsed.data;
};

/** A scope's state as its item holds it. */
export const parseScopeState = (text: string, key: string): ScopeState => {
  const { version: _v, ...state } = parseItem(scopeState, text, key);
  return state;
};

/** A run as its item holds it. */
export const parseRunRecord = (text: string, key: string): RunRecord => {
  const { version: _v, ...run } = parseItem(runRecord, text, key);
  return run;
};

/** The item's text of a scope's state or a run, with the version of its shape. */
export const storedItem = (value: ScopeState | RunRecord): string =>
  JSON.stringify({ version: RUN_HISTORY_ITEM_VERSION, ...value });
