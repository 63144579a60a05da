/**
 * The stack's run reads JSON Lines exports itself. CSV is decoded by the bulk loader's reading
 * API under ops/, which runtime code may not import; until that API moves under lambdas/ (after
 * the branch that rebuilds its CSV parser lands), a CSV drop is refused with this reason and
 * planned with `npm run ops -- reconcile plan` (docs/decisions.md, "Reconciliation").
 */
import { SnapshotRefused } from './manifest';
import type { DecodedRow, ExportDecoder } from './snapshot';

export const decodeJsonLinesOnly: ExportDecoder = (text, format) => {
  if (format !== 'jsonl') {
    throw new SnapshotRefused(
      'FORMAT',
      'the stack reads JSON Lines exports; plan a CSV export with `npm run ops -- reconcile plan <manifest>`',
    );
  }
  return text.split('\n').flatMap((raw, index): DecodedRow[] => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return [];
    try {
      return [{ position: index + 1, value: JSON.parse(line) }];
    } catch {
      return [{ position: index + 1, error: 'is not valid JSON' }];
    }
  });
};
