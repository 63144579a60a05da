/**
 * An alias item (a previewRecordId standing for its family) is parsed when read: the first shape
 * (the id alone) still reads, the current one carries its version, and an item that is neither
 * is refused naming the alias and the field, never taken for another family.
 */
import { describe, expect, it } from 'vitest';
import {
  ALIAS_TARGET_VERSION,
  aliasTarget,
  parseAliasTarget,
} from '../../../lambdas/core/ledger/alias-target';
import { LedgerDocError } from '../../../lambdas/core/ledger/ledger-doc';
import { RECORD_FAMILY_PARTS } from '../../../lambdas/entities/record-family/persisted';

const ID = { region: 'eu-central-1', clientId: 'C-1' };
const ALIAS = 'record-id#abc';

describe('alias items', () => {
  it('reads the first shape, the id alone', () => {
    // Prepare: as the first shape was written
    const first = JSON.stringify(ID);

    // Act / Assess
    expect(parseAliasTarget(first, RECORD_FAMILY_PARTS.id, ALIAS)).toEqual(ID);
  });

  it('writes the id with its version, and reads it back', () => {
    // Act
    const text = aliasTarget(ID);

    // Assess
    expect(JSON.parse(text)).toEqual({ version: ALIAS_TARGET_VERSION, ...ID });
    expect(parseAliasTarget(text, RECORD_FAMILY_PARTS.id, ALIAS)).toEqual(ID);
  });

  it.each([
    ['not JSON', '{"region"', 'not JSON'],
    ['a newer version', JSON.stringify({ version: 2, ...ID }), 'version'],
    ['no clientId', JSON.stringify({ version: 1, region: 'eu-central-1' }), 'clientId'],
  ])('refuses %s, naming the alias and the field', (_name, text, field) => {
    // Act
    const read = () => parseAliasTarget(text, RECORD_FAMILY_PARTS.id, ALIAS);

    // Assess
    expect(read).toThrow(LedgerDocError);
    expect(read).toThrow(field);
    expect(read).toThrow(ALIAS);
  });
});
