/**
 * docs/operations.md names reconciliation's refusal codes and entry reasons by hand; this holds
 * it to the one table in code (lambdas/reconcile/reconcile-codes.ts): its refusal table lists
 * every code and no other, and every code-like word its reconcile section names is one of the
 * table's (a refusal code or an entry reason).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENTRY_REASONS, REFUSAL_CODES } from '../../../lambdas/reconcile/reconcile-codes';
import { REPO_ROOT } from '../../support/repo-paths';

const operations = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');

/** The text from a heading to the next heading of its level or higher. */
const section = (heading: string): string => {
  const start = operations.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`docs/operations.md has no "${heading}"`);
  const level = heading.split(' ')[0] ?? '';
  const rest = operations.slice(start + heading.length);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return end < 0 ? rest : rest.slice(0, end);
};

describe('docs/operations.md and the reconcile codes table', () => {
  it('lists every refusal code in its refusal table, and no other', () => {
    // Prepare
    const rows = section('### Refusal codes')
      .split('\n')
      .filter((line) => line.startsWith('| `'));

    // Act
    const documented = rows.map((row) => /^\| `([A-Z_]+)`/.exec(row)?.[1]);

    // Assess
    expect(documented.sort()).toEqual(Object.keys(REFUSAL_CODES).sort());
  });

  it('names no code in its reconcile section that the code does not have', () => {
    // Prepare: back-quoted or parenthesised upper-case words of two parts or more
    const text = section('## `reconcile`');
    const named = new Set(
      [...text.matchAll(/[`(]([A-Z]+(?:_[A-Z]+)+)[`)]/g)].map((match) => match[1] ?? ''),
    );

    // Act
    const unknown = [...named].filter(
      (code) => !(code in REFUSAL_CODES) && !(code in ENTRY_REASONS),
    );

    // Assess
    expect(named.size).toBeGreaterThan(10);
    expect(unknown).toEqual([]);
  });
});
