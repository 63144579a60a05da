/**
 * A plan as a person reads it before anything changes: each category with its count and the
 * first entities in it, the delete gates, and what the plan could not see.
 */
import { CATEGORIES, CHANGES, categoryLabel, isListed } from './categories';
import { hasChanges, type Plan } from './plan';

const SHOWN = 8;

export const summarizePlan = (plan: Plan): string[] => {
  const lines = [
    `Plan ${plan.planId}: scope ${plan.scope} (${plan.kind}), snapshot ${plan.snapshot.file} exported ${plan.snapshot.exportedAt}, ${plan.snapshot.rowCount} rows`,
  ];
  for (const category of CATEGORIES) {
    const entries = plan.entries.filter((e) => e.category === category);
    lines.push(`  ${categoryLabel(category).padEnd(10)} ${String(entries.length).padStart(6)}`);
    if (!isListed(category)) continue;
    for (const entry of entries.slice(0, SHOWN)) {
      const detail = [
        entry.fields?.join(', '),
        entry.reason,
        entry.scopes === undefined ? undefined : `scopes ${entry.scopes.join(', ')}`,
        entry.line === undefined ? undefined : `line ${entry.line}`,
      ].filter((d) => d !== undefined);
      lines.push(`      ${entry.entity}${detail.length > 0 ? `  (${detail.join('; ')})` : ''}`);
    }
    if (entries.length > SHOWN)
      lines.push(`      … and ${entries.length - SHOWN} more (see the report)`);
  }
  for (const sweep of plan.sweeps ?? []) {
    lines.push(
      `  sweep ${sweep.campaignName}: ${sweep.records} records in ${sweep.searches} searches${sweep.splitOn.length > 0 ? `, split on ${sweep.splitOn.join(', ')}` : ''}, ${sweep.complete ? 'complete' : `NOT shown complete: ${sweep.incompleteBecause}`}`,
    );
  }
  for (const { key, records } of plan.keptKeys ?? []) {
    lines.push(
      `  data key ${key}: on ${records} record(s), in no row of the export: kept, not erased`,
    );
  }
  if (plan.candidates !== undefined) {
    lines.push(
      `  candidates checked with query-existence: ${plan.candidates.checked}; ${plan.candidates.outOfReach}`,
    );
  }
  const { deletes } = plan;
  lines.push(
    deletes.held
      ? `  deletes HELD: ${deletes.heldBecause.join('; ')}. Apply with --allow-deletes ${deletes.count} to send them.`
      : `  deletes: ${deletes.count}, within the gate (${deletes.gate})`,
  );
  const changes = CHANGES.map((category) => `${plan.counts[category]} to ${category}`);
  lines.push(
    hasChanges(plan)
      ? `Plan: ${changes.join(', ')}.`
      : 'No changes: the platform matches the export within the scope.',
  );
  return lines;
};
