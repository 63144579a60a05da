/**
 * How reconciliation reads an export: with the bulk loader's reading API (JSON Lines, or CSV
 * with its column mappings), shared by the stack's run and the ops CLI. A file that cannot be
 * read as a whole (a bad CSV header) refuses the snapshot, naming why.
 */
import { decodeInput } from '../input/input-format';
import { InputRefused } from '../input/input-refused';
import { SnapshotRefused } from './manifest';
import type { ExportDecoder } from './snapshot';

export const decodeExport: ExportDecoder = (text, format) => {
  try {
    return decodeInput(text, format);
  } catch (error) {
    if (error instanceof InputRefused) throw new SnapshotRefused('INVALID_ROWS', error.message);
    throw error;
  }
};
