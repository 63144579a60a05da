import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_MALFORMED_RECORDS, parseCsv } from '../../../lambdas/input/csv';
import { mapRecord, planColumns } from '../../../lambdas/input/csv-mapping';
import { InputRefused } from '../../../lambdas/input/input-refused';

/** A field as a careful writer quotes it: always quoted, quotes doubled. */
const quote = (field: string): string => `"${field.replaceAll('"', '""')}"`;

describe('parseCsv', () => {
  it.each([
    [
      'plain fields',
      'a,b\n1,2\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'CRLF line ends',
      'a,b\r\n1,2\r\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'no final line end',
      'a,b\n1,2',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    ['quoted comma, quote and line break', 'a\n"x, ""y""\nz"\n', [['a'], ['x, "y"\nz']]],
    [
      'empty fields',
      ',\n"",x\n',
      [
        ['', ''],
        ['', 'x'],
      ],
    ],
    ['blank lines skipped', 'a\n\n1\n', [['a'], ['1']]],
    ['byte-order mark dropped', '\uFEFFa\n1\n', [['a'], ['1']]],
  ])('reads %s', (_case, text, rows) => {
    // Act
    const records = parseCsv(text);

    // Assess
    expect(records.map((r) => ('fields' in r ? r.fields : r.error))).toEqual(rows);
  });

  it('numbers each record by the line it starts on, across quoted line breaks', () => {
    // Act
    const records = parseCsv('h\r\n"a\r\nb"\r\nc\r\n\r\nd\r\n');

    // Assess
    expect(records.map((r) => r.line)).toEqual([1, 2, 4, 6]);
  });

  it.each([
    ['a quote inside an unquoted field', 'h\nab"c\nok\n', 2, 'a quote inside an unquoted field'],
    ['text after a closing quote', 'h\n"ab"c\nok\n', 2, 'text after its closing quote'],
  ])('reports %s on its line and reads on', (_case, text, line, message) => {
    // Act
    const records = parseCsv(text);

    // Assess
    expect(records[1]).toEqual({ line, error: expect.stringContaining(message) });
    expect(records[2]).toEqual({ line: 3, fields: ['ok'] });
  });

  it('reports every bad record on the line it starts on, never with its values', () => {
    // Prepare: a quoted CRLF before them, blank lines between them.
    const text = 'h\r\n"a\r\nb"\r\nsecret"x\r\n\r\n"v"w\r\nok\r\n';

    // Act
    const records = parseCsv(text);

    // Assess
    expect(records).toEqual([
      { line: 1, fields: ['h'] },
      { line: 2, fields: ['a\r\nb'] },
      { line: 4, error: expect.stringContaining('a quote inside an unquoted field') },
      { line: 6, error: 'field 1: text after its closing quote' },
      { line: 7, fields: ['ok'] },
    ]);
    expect(JSON.stringify(records.filter((r) => 'error' in r))).not.toMatch(/secret|"v/);
  });

  it('reads on after the line of the fault when a bad record spans lines', () => {
    // Act
    const records = parseCsv('h\n"a\nb"c\nok\n');

    // Assess
    expect(records.slice(1)).toEqual([
      { line: 2, error: 'field 1: text after its closing quote' },
      { line: 4, fields: ['ok'] },
    ]);
  });

  it('reads on at the right line after faults behind multi-byte characters', () => {
    // Prepare: UTF-8 text of two and three bytes a character before and between the faults.
    const text = 'h\n"Müller"x\nGrüße\n€"b\nok\n';

    // Act
    const records = parseCsv(text);

    // Assess
    expect(records).toEqual([
      { line: 1, fields: ['h'] },
      { line: 2, error: 'field 1: text after its closing quote' },
      { line: 3, fields: ['Grüße'] },
      { line: 4, error: expect.stringContaining('a quote inside an unquoted field') },
      { line: 5, fields: ['ok'] },
    ]);
  });

  it(`reports up to ${MAX_MALFORMED_RECORDS - 1} malformed records, each on its line, and reads the rest`, () => {
    // Prepare: a header, then good and bad lines in turn.
    const lines = Array.from({ length: MAX_MALFORMED_RECORDS - 1 }, (_, i) => `ok${i}\nb"ad`);
    const text = `h\n${lines.join('\n')}\nlast\n`;

    // Act
    const records = parseCsv(text);

    // Assess
    const bad = records.filter((r) => 'error' in r);
    expect(bad.map((r) => r.line)).toEqual(lines.map((_, i) => 3 + 2 * i));
    expect(records.at(-1)).toEqual({ line: 2 * MAX_MALFORMED_RECORDS, fields: ['last'] });
  });

  it(`refuses the file at its ${MAX_MALFORMED_RECORDS}th malformed record, naming the first`, () => {
    // Prepare: the first fault on line 3, then one a line.
    const bad = Array.from({ length: MAX_MALFORMED_RECORDS + 5 }, () => 'b"ad');
    const text = `h\nok\n${bad.join('\n')}\n`;

    // Act / Assess
    expect(() => parseCsv(text)).toThrow(InputRefused);
    expect(() => parseCsv(text)).toThrow(
      `${MAX_MALFORMED_RECORDS} malformed records (the first on line 3, the ${MAX_MALFORMED_RECORDS}th on line ${MAX_MALFORMED_RECORDS + 2}): reading stopped there`,
    );
  });

  it('keeps a lone CR inside a quoted field as data', () => {
    // Act
    const records = parseCsv('h,i\n"x\ry",2\n');

    // Assess
    expect(records[1]).toEqual({ line: 2, fields: ['x\ry', '2'] });
  });

  it('reports a quoted field that is never closed', () => {
    // Act
    const records = parseCsv('h\n"abc\n');

    // Assess
    expect(records[1]).toEqual({ line: 2, error: 'field 1: a quoted field is never closed' });
  });

  it('reads back any table written with quoted fields', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 5 }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.constantFrom('\n', '\r\n'),
        (rows, lineEnd) => {
          // Act
          const text = rows.map((row) => row.map(quote).join(',')).join(lineEnd);
          const records = parseCsv(text);

          // Assess
          expect(records.map((r) => ('fields' in r ? r.fields : r.error))).toEqual(rows);
        },
      ),
    );
  });
});

describe('CSV header mapping', () => {
  it('maps fields, JSON fields and data items with their display order', () => {
    // Prepare
    const columns = planColumns([
      'campaignName',
      'clientId',
      'nextEarliestWorkTimeUTC:json',
      'data.FirstName',
      'data.phone1:2',
    ]);

    // Act
    const mapped = mapRecord(columns, ['Renewals', '007', '1700000000000', 'Ada', '+4915123']);

    // Assess
    expect(mapped).toEqual({
      message: {
        campaignName: 'Renewals',
        clientId: '007',
        nextEarliestWorkTimeUTC: 1700000000000,
        previewRecordData: [
          { key: 'FirstName', value: 'Ada' },
          { key: 'phone1', value: '+4915123', displayOrder: 2 },
        ],
      },
    });
  });

  it('leaves out the fields and items of empty cells', () => {
    // Act
    const mapped = mapRecord(planColumns(['clientId', 'region', 'data.a', 'data.b']), [
      'c',
      '',
      '',
      'x',
    ]);

    // Assess
    expect(mapped).toEqual({
      message: { clientId: 'c', previewRecordData: [{ key: 'b', value: 'x' }] },
    });
  });

  it.each([
    [['a', 'b'], ['1'], 'has 1 fields, the header has 2'],
    [['n:json'], ['{oops'], 'column n:json is not valid JSON'],
  ])('reports a bad record of %j without its values', (header, fields, error) => {
    // Act
    const mapped = mapRecord(planColumns(header), fields);

    // Assess
    expect(mapped).toEqual({ error });
  });

  it.each([
    [['a', ''], 'CSV column 2 has no heading'],
    [['data.x', 'data.x:3'], 'names data.x twice'],
    [['data.x:0'], 'displayOrder must be from 1'],
    [['a.b'], 'is neither a message field'],
    [['previewRecordData:json', 'data.x'], 'both previewRecordData and data.<key>'],
  ])('refuses the header %j', (header, message) => {
    // Act / Assess
    expect(() => planColumns(header)).toThrow(message);
  });
});
