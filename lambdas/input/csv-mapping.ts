/**
 * How a CSV header becomes messages. A column named after a message field sets that field (a
 * string; `<field>:json` decodes the cell as JSON for numbers, booleans and arrays); a column
 * `data.<key>` becomes a `previewRecordData` item, `data.<key>:<n>` one with displayOrder n.
 * An empty cell leaves its field or item out.
 */
import { InputRefused } from './input-refused';

export type CsvColumn =
  | { readonly kind: 'field'; readonly name: string; readonly json: boolean }
  | { readonly kind: 'data'; readonly key: string; readonly displayOrder?: number };

const DATA_PREFIX = 'data.';

const planColumn = (heading: string, index: number): CsvColumn => {
  const name = heading.trim();
  const where = `CSV column ${index + 1}`;
  if (name === '') throw new InputRefused(`${where} has no heading`);
  if (name.startsWith(DATA_PREFIX)) {
    const match = /^(.+?)(?::(\d{1,10}))?$/.exec(name.slice(DATA_PREFIX.length));
    const key = match?.[1];
    if (key === undefined) throw new InputRefused(`${where} "${name}" names no data key`);
    const order = match?.[2];
    if (order === undefined) return { kind: 'data', key };
    const displayOrder = Number(order);
    if (displayOrder < 1 || displayOrder > 2_147_483_647) {
      throw new InputRefused(`${where} "${name}": displayOrder must be from 1 to 2147483647`);
    }
    return { kind: 'data', key, displayOrder };
  }
  if (name.endsWith(':json')) return { kind: 'field', name: name.slice(0, -5), json: true };
  if (name.includes(':') || name.includes('.')) {
    throw new InputRefused(
      `${where} "${name}" is neither a message field, <field>:json, data.<key> nor data.<key>:<displayOrder>`,
    );
  }
  return { kind: 'field', name, json: false };
};

const columnId = (column: CsvColumn): string =>
  column.kind === 'field' ? column.name : `${DATA_PREFIX}${column.key}`;

/** The meaning of each column; a heading that maps nowhere, or twice, is a usage error. */
export const planColumns = (header: readonly string[]): CsvColumn[] => {
  const columns = header.map(planColumn);
  const seen = new Set<string>();
  for (const column of columns) {
    const id = columnId(column);
    if (seen.has(id)) throw new InputRefused(`CSV header names ${id} twice`);
    seen.add(id);
  }
  if (columns.some((c) => c.kind === 'field' && c.name === 'previewRecordData')) {
    if (columns.some((c) => c.kind === 'data')) {
      throw new InputRefused('CSV header has both previewRecordData and data.<key> columns');
    }
  }
  return columns;
};

export type MappedRecord =
  | { readonly message: Record<string, unknown> }
  | { readonly error: string };

/** One record as a message. Errors name the column, never the cell's value. */
export const mapRecord = (
  columns: readonly CsvColumn[],
  fields: readonly string[],
): MappedRecord => {
  if (fields.length !== columns.length) {
    return { error: `has ${fields.length} fields, the header has ${columns.length}` };
  }
  const message: Record<string, unknown> = {};
  const items: { key: string; value: string; displayOrder?: number }[] = [];
  for (const [index, column] of columns.entries()) {
    const cell = fields[index] ?? '';
    if (cell === '') continue;
    if (column.kind === 'data') {
      items.push({
        key: column.key,
        value: cell,
        ...(column.displayOrder === undefined ? {} : { displayOrder: column.displayOrder }),
      });
    } else if (column.json) {
      try {
        message[column.name] = JSON.parse(cell);
      } catch {
        return { error: `column ${column.name}:json is not valid JSON` };
      }
    } else {
      message[column.name] = cell;
    }
  }
  if (columns.some((c) => c.kind === 'data')) message.previewRecordData = items;
  return { message };
};
