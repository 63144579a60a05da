/**
 * The small file a producer drops beside an export: what it is (kind, scope), when it was taken
 * (`exportedAt`, the time every repair is stamped with), and how to know it arrived whole (row
 * count and SHA-256 of the file's bytes).
 */
import * as z from 'zod/mini';
import { formatIssues } from '../messages/parse';
import { scopeKind } from './categories';
import { PermanentRefusal } from './refusal';

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const manifestSchema = z.strictObject({
  kind: scopeKind,
  /** A scope of the deployment config (`reconcile.scopes.<name>`). */
  scope: z.string().check(z.minLength(1, 'must not be empty')),
  /** The export, relative to the manifest (the same folder or bucket prefix). */
  file: z.string().check(
    z.minLength(1, 'must not be empty'),
    z.refine((f) => !f.includes('..') && !f.startsWith('/'), 'must be a file beside the manifest'),
  ),
  /** Default: from the file's extension (.csv, .jsonl / .ndjson). */
  format: z.optional(z.enum(EXPORT_FORMATS, `must be one of ${EXPORT_FORMATS.join(', ')}`)),
  exportedAt: z.iso.datetime({
    offset: false,
    error: 'must be an RFC 3339 UTC time such as 2026-11-24T06:00:00.000Z',
  }),
  rowCount: z.int('must be an integer').check(z.minimum(0, 'must be at least 0')),
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits')),
});

export type Manifest = Omit<z.infer<typeof manifestSchema>, 'format' | 'exportedAt'> & {
  readonly format: ExportFormat;
  /** RFC 3339 UTC with milliseconds. */
  readonly exportedAt: string;
};

/** A manifest or export that must not be planned; the message names the problem, never a value. */
export class SnapshotRefused extends PermanentRefusal {
  // Permanent: the snapshot itself is wrong (or outdated); send a corrected one.
  override readonly name = 'SnapshotRefused';
}

export const formatOfExport = (file: string): ExportFormat | undefined => {
  const lower = file.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  return undefined;
};

/** The manifest's text, parsed; a `SnapshotRefused` (code MANIFEST) names every bad field. */
export const parseManifest = (text: string, where = 'manifest'): Manifest => {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    throw new SnapshotRefused('MANIFEST', `${where} is not valid JSON`);
  }
  const parsed = z.safeParse(manifestSchema, input, { reportInput: true });
  if (!parsed.success) {
    throw new SnapshotRefused('MANIFEST', `${where}: ${formatIssues(parsed.error.issues)}`);
  }
  const format = parsed.data.format ?? formatOfExport(parsed.data.file);
  if (format === undefined) {
    throw new SnapshotRefused(
      'MANIFEST',
      `${where}: format: is required when the file name does not end in .csv, .jsonl or .ndjson`,
    );
  }
  return {
    ...parsed.data,
    format,
    exportedAt: new Date(Date.parse(parsed.data.exportedAt)).toISOString(),
  };
};
