/**
 * RFC 4180 CSV through csv-parse: comma-separated fields, double-quoted fields may hold commas,
 * quotes (doubled) and line breaks; records end with LF or CRLF (a lone CR is data). What this
 * adds is what the bulk loader reports: the line each record starts on, and a bad record as an
 * error on its line, without its values, while the records after it are still read (up to
 * `MAX_MALFORMED_RECORDS` of them).
 */
import { CsvError, type Options, parse } from 'csv-parse/sync';
import { InputRefused } from './input-refused';

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

/**
 * Malformed records a file may hold: at the 100th reading stops and the file is refused as a
 * whole. So many faults say it is not this CSV (another delimiter, encoding or format), and each
 * one costs a parse of the rest of the file.
 */
export const MAX_MALFORMED_RECORDS = 100;

/**
 * Every record with the line number it starts on (1-based; a quoted line break makes a record
 * span lines). A malformed record is returned as an error and reading goes on at the line after
 * the fault, so one bad line never hides the others; a quote never closed ends the file. Blank
 * lines are skipped. Throws `InputRefused` at the `MAX_MALFORMED_RECORDS`th malformed record.
 */
export const parseCsv = (text: string): CsvRecord[] => {
  // One buffer, read on from a view at an offset: csv-parse copies a string it is given into a
  // buffer, so passing it the rest of the text after each fault copied the file once per fault.
  const bytes = Buffer.from(text);
  // Where line `at.line` starts, moved only forward (a fault's next line is always further on),
  // so finding the lines costs one pass over the file in all.
  const at = { line: 1, offset: 0 };
  const startOf = (line: number): number => {
    while (at.line < line && at.offset < bytes.length) {
      const next = bytes.indexOf(0x0a, at.offset);
      at.offset = next === -1 ? bytes.length : next + 1;
      at.line += 1;
    }
    return at.offset;
  };
  const records: CsvRecord[] = [];
  let firstMalformed: number | undefined;
  let malformed = 0;
  let from = 1;
  for (;;) {
    // Lines are counted here: csv-parse counts a CR and an LF inside quotes as two lines.
    let endLine = from - 1;
    let parserEndLine = 0;
    let emptyLines = 0;
    try {
      parse(bytes.subarray(startOf(from)), {
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
      firstMalformed ??= line;
      malformed += 1;
      if (malformed >= MAX_MALFORMED_RECORDS) {
        throw new InputRefused(
          `The CSV has ${malformed} malformed records (the first on line ${firstMalformed}, the ${malformed}th on line ${line}): reading stopped there. Is it comma-separated CSV in UTF-8?`,
        );
      }
      records.push({ line, error: problem(error) });
      if (error.code === 'CSV_QUOTE_NOT_CLOSED') return records;
      // The fault is on the record's last line: it was found outside quotes.
      from = line + Number(error.lines) - (parserEndLine + 1 + skipped) + 1;
    }
  }
};
