/**
 * The formats the bulk loader and reconciliation read, and how a file's text becomes numbered
 * candidate messages: a JSON document (one message or an array; numbered by position), JSON
 * Lines and CSV (numbered by the line a message starts on). Nothing here knows an action's
 * schema. A file that cannot be read as a whole throws `InputRefused`.
 */
import path from 'node:path';
import { parseCsv } from './csv';
import { mapRecord, planColumns } from './csv-mapping';
import { InputRefused } from './input-refused';

export const INPUT_FORMATS = ['json', 'jsonl', 'csv'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

export const isInputFormat = (value: string): value is InputFormat =>
  (INPUT_FORMATS as readonly string[]).includes(value);

/** `.csv` → csv, `.jsonl` / `.ndjson` → jsonl, anything else → json. */
export const formatOf = (file: string): InputFormat => {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  return 'json';
};

/** One candidate message, or why its line could not even be read as one. */
export type InputItem =
  | { readonly position: number; readonly value: unknown }
  | { readonly position: number; readonly error: string };

/** How a position reads in reports: `line 12`, or `message 3` in a JSON document. */
export const positionLabel = (format: InputFormat, position: number): string =>
  format === 'json' ? `message ${position}` : `line ${position}`;

const decodeJsonDocument = (text: string): InputItem[] => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    // The engine's message quotes the text around the error, which may be personal data.
    throw new InputRefused('The input is not a valid JSON document (one message or an array)');
  }
  const values = Array.isArray(decoded) ? decoded : [decoded];
  return values.map((value, index) => ({ position: index + 1, value }));
};

const decodeJsonLines = (text: string): InputItem[] =>
  text.split('\n').flatMap((raw, index): InputItem[] => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return [];
    try {
      return [{ position: index + 1, value: JSON.parse(line) }];
    } catch {
      return [{ position: index + 1, error: 'is not valid JSON' }];
    }
  });

const decodeCsv = (text: string): InputItem[] => {
  const [header, ...records] = parseCsv(text);
  if (header === undefined) return [];
  if ('error' in header)
    throw new InputRefused(`The CSV header (line ${header.line}): ${header.error}`);
  const columns = planColumns(header.fields);
  return records.map((record): InputItem => {
    if ('error' in record) return { position: record.line, error: record.error };
    const mapped = mapRecord(columns, record.fields);
    return 'error' in mapped
      ? { position: record.line, error: mapped.error }
      : { position: record.line, value: mapped.message };
  });
};

export const decodeInput = (text: string, format: InputFormat): InputItem[] => {
  if (format === 'json') return decodeJsonDocument(text);
  if (format === 'jsonl') return decodeJsonLines(text);
  return decodeCsv(text);
};
