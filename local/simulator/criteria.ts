import type { StoredRecord } from './state';

export const SEARCH_CONDITIONS = [
  'EQUALS',
  'NOTEQUALS',
  'GREATERTHAN',
  'LESSTHAN',
  'CONTAINS',
  'BEGINSWITH',
] as const;
export type SearchCondition = (typeof SEARCH_CONDITIONS)[number];

export const SYSTEM_KEYS = [
  'sys_skill_queue',
  'sys_worked_attempts',
  'sys_item_time_zone',
  'sys_worked_state',
  'sys_preferred_agent',
  'sys_next_earliest_worktime_long',
] as const;
export type SystemKey = (typeof SYSTEM_KEYS)[number];

export interface Criterion {
  readonly key: string;
  readonly value: string;
  readonly condition: SearchCondition;
}

export const isSearchCondition = (value: unknown): value is SearchCondition =>
  typeof value === 'string' && (SEARCH_CONDITIONS as readonly string[]).includes(value);

export const isSystemKey = (value: string): value is SystemKey =>
  (SYSTEM_KEYS as readonly string[]).includes(value);

/** A plain decimal number (no hex, no blanks, no `Infinity`): only these compare numerically. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

const asNumber = (value: string): number | undefined => {
  if (!DECIMAL.test(value)) return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
};

/**
 * GREATERTHAN / LESSTHAN ordering: numeric when both sides are decimal numbers, otherwise
 * case-sensitive string order (UTF-16 code units). Returns <0, 0 or >0 like a comparator.
 */
export const compareValues = (recordValue: string, criterionValue: string): number => {
  const left = asNumber(recordValue);
  const right = asNumber(criterionValue);
  if (left !== undefined && right !== undefined) return Math.sign(left - right);
  return recordValue < criterionValue ? -1 : recordValue > criterionValue ? 1 : 0;
};

/**
 * The value a criterion key reads from a record, or undefined when the record has none
 * (custom key absent, no preferred agent, no next earliest work time). Absent values match
 * no condition at all, NOTEQUALS included (SQL NULL semantics).
 */
export const valueForKey = (record: StoredRecord, key: string): string | undefined => {
  switch (key) {
    case 'sys_skill_queue':
      return record.skillQueue;
    case 'sys_worked_attempts':
      return String(record.workAttempts);
    case 'sys_item_time_zone':
      return record.timeZone;
    case 'sys_worked_state':
      return record.workedState;
    case 'sys_preferred_agent':
      return record.preferredAgent ?? undefined;
    case 'sys_next_earliest_worktime_long':
      return record.nextEarliestWorkTime === null ? undefined : String(record.nextEarliestWorkTime);
    default:
      return record.dataByKey.get(key);
  }
};

export const matchesCondition = (
  recordValue: string | undefined,
  condition: SearchCondition,
  criterionValue: string,
): boolean => {
  if (recordValue === undefined) return false;
  switch (condition) {
    case 'EQUALS':
      return recordValue === criterionValue;
    case 'NOTEQUALS':
      return recordValue !== criterionValue;
    case 'GREATERTHAN':
      return compareValues(recordValue, criterionValue) > 0;
    case 'LESSTHAN':
      return compareValues(recordValue, criterionValue) < 0;
    case 'CONTAINS':
      return recordValue.includes(criterionValue);
    case 'BEGINSWITH':
      return recordValue.startsWith(criterionValue);
  }
};

/** All criteria must match (AND). */
export const matchesAll = (record: StoredRecord, criteria: readonly Criterion[]): boolean =>
  criteria.every((c) => matchesCondition(valueForKey(record, c.key), c.condition, c.value));
