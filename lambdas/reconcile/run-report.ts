/**
 * A run's report as JSON Lines, for a person or a log tool: the plan's header (counts, gates,
 * sweeps) and one line per entity of a listed category (all but in sync), with its category,
 * reason and the names of the fields that differ. Never a data value: repair messages stay in
 * the plan.
 */
import { isListed } from './categories';
import type { Plan } from './plan';

export const reportLines = (plan: Plan, extra: Record<string, unknown> = {}): string[] => {
  const { entries, ...header } = plan;
  return [
    JSON.stringify({ type: 'run', ...header, ...extra }),
    ...entries
      .filter((entry) => isListed(entry.category))
      .map((entry) =>
        JSON.stringify({
          type: 'entity',
          entity: entry.entity,
          category: entry.category,
          ...(entry.reason === undefined ? {} : { reason: entry.reason }),
          ...(entry.scopes === undefined ? {} : { scopes: entry.scopes }),
          ...(entry.fields === undefined ? {} : { fields: entry.fields }),
          ...(entry.line === undefined ? {} : { line: entry.line }),
          ...(entry.repair === undefined ? {} : { action: entry.repair.action }),
        }),
      ),
  ];
};
