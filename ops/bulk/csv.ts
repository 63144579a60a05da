/**
 * RFC 4180 CSV: comma-separated fields, double-quoted fields may hold commas, quotes (doubled)
 * and line breaks; records end with LF or CRLF. Hand-written because no CSV package can be
 * added (see docs/decisions.md); small enough to read in one sitting.
 */

export type CsvRecord =
  | { readonly line: number; readonly fields: readonly string[] }
  | { readonly line: number; readonly error: string };

/**
 * Every record with the line number it starts on (1-based; a quoted line break makes a record
 * span lines). A malformed record is returned as an error and parsing goes on at the next line,
 * so one bad line never hides the others. Blank lines are skipped.
 */
export const parseCsv = (text: string): CsvRecord[] => {
  const records: CsvRecord[] = [];
  // A byte-order mark is an encoding artefact of spreadsheet exports, not part of the header.
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (at < text.length) {
    const start = line;
    const fields: string[] = [];
    let error: string | undefined;
    let field = '';
    let quoted = false;
    let wasQuoted = false;
    let ended = false;
    while (at < text.length && !ended) {
      const char = text[at] as string;
      if (quoted) {
        if (char === '"') {
          if (text[at + 1] === '"') {
            field += '"';
            at += 2;
          } else {
            quoted = false;
            at += 1;
          }
          continue;
        }
        if (char === '\n') line += 1;
        field += char;
        at += 1;
        continue;
      }
      if (char === ',') {
        fields.push(field);
        field = '';
        wasQuoted = false;
        at += 1;
      } else if (char === '\n' || (char === '\r' && text[at + 1] === '\n')) {
        at += char === '\r' ? 2 : 1;
        line += 1;
        ended = true;
      } else if (char === '"' && field === '' && !wasQuoted) {
        quoted = true;
        wasQuoted = true;
        at += 1;
      } else if (wasQuoted || char === '"') {
        error ??= wasQuoted
          ? `field ${fields.length + 1}: text after its closing quote`
          : `field ${fields.length + 1}: a quote inside an unquoted field (quote the whole field and double the quote)`;
        at += 1;
      } else {
        field += char;
        at += 1;
      }
    }
    if (quoted) error ??= `field ${fields.length + 1}: a quoted field is never closed`;
    fields.push(field);
    if (error !== undefined) records.push({ line: start, error });
    else if (!(fields.length === 1 && fields[0] === '' && !wasQuoted)) {
      records.push({ line: start, fields });
    }
  }
  return records;
};
