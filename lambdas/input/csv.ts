/**
 * RFC 4180 CSV through csv-parse: comma-separated fields, double-quoted fields may hold commas,
 * quotes (doubled) and line breaks; records end with LF or CRLF (a lone CR is data). What this
 * adds is what the bulk loader reports: the line each record starts on, and a bad record as an
 * error on its line, without its values, while the records after it are still read.
 */
import { CsvError, type Options, parse } from 'csv-parse/sync';

export type CsvRecord =
  | { readonly line: number; readonly fields: readonly string[] }
  | { readonly line: number; readonly error: string };

const OPTIONS: Options = {
  // A byte-order mark is an encoding artefact of spreadsheet exports, not part of the header.
  bom: true,
  // Explicit: detection would take a CR inside the first quoted field for the delimiter.
  record_delimiter: ['\r\n', '\n'],
  skip_empty_lines: true,
  // The mapping reports a record of the wrong length, naming both counts.
  relax_column_count: true,
};

/** What is wrong with a record, in the loader's words; csv-parse's own message quotes the value. */
const problem = (error: CsvError): string => {
  const field = `field ${Number(error.index ?? 0) + 1}`;
  switch (error.code) {
    case 'INVALID_OPENING_QUOTE':
      return `${field}: a quote inside an unquoted field (quote the whole field and double the quote)`;
    case 'CSV_INVALID_CLOSING_QUOTE':
      return `${field}: text after its closing quote`;
    case 'CSV_QUOTE_NOT_CLOSED':
      return `${field}: a quoted field is never closed`;
    default:
      return `not valid CSV (${error.code})`;
  }
};

const lineBreaks = (fields: readonly string[]): number =>
  fields.reduce((sum, field) => sum + field.split('\n').length - 1, 0);

/** Offset of the start of 1-based `line` in `text` (its length when there is no such line). */
const lineStart = (text: string, line: number): number => {
  let at = 0;
  for (let n = 1; n < line; n += 1) {
    const next = text.indexOf('\n', at);
    if (next === -1) return text.length;
    at = next + 1;
  }
  return at;
};

/**
 * Every record with the line number it starts on (1-based; a quoted line break makes a record
 * span lines). A malformed record is returned as an error and reading goes on at the line after
 * the fault, so one bad line never hides the others; a quote never closed ends the file. Blank
 * lines are skipped.
 */
export const parseCsv = (text: string): CsvRecord[] => {
  const records: CsvRecord[] = [];
  let from = 1;
  for (;;) {
    // Lines are counted here: csv-parse counts a CR and an LF inside quotes as two lines.
    let endLine = from - 1;
    let parserEndLine = 0;
    let emptyLines = 0;
    try {
      parse(text.slice(lineStart(text, from)), {
        ...OPTIONS,
        on_record: (record: string[], info) => {
          const line = endLine + 1 + info.empty_lines - emptyLines;
          records.push({ line, fields: record });
          endLine = line + lineBreaks(record);
          parserEndLine = info.lines;
          emptyLines = info.empty_lines;
          return null;
        },
      });
      return records;
    } catch (error) {
      if (!(error instanceof CsvError)) throw error;
      const skipped = Number(error.empty_lines ?? emptyLines) - emptyLines;
      const line = endLine + 1 + skipped;
      records.push({ line, error: problem(error) });
      if (error.code === 'CSV_QUOTE_NOT_CLOSED') return records;
      // The fault is on the record's last line: it was found outside quotes.
      from = line + Number(error.lines) - (parserEndLine + 1 + skipped) + 1;
    }
  }
};
