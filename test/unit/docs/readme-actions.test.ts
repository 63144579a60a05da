/**
 * The README's actions table is written by hand; this holds it to the action list, so a new
 * action, or a changed endpoint, fails here until the README says it too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../../lambdas/actions';
import { REPO_ROOT } from '../../support/repo-paths';

/** The body rows of the first table under `### Actions`, as written. */
const readmeActionRows = (): string[] => {
  const lines = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8').split('\n');
  const start = lines.indexOf('### Actions');
  const table: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('|')) table.push(line);
    else if (table.length > 0) break;
  }
  return table.slice(2); // after the header and its |---| line
};

describe('the README actions table', () => {
  it('has one row per action, in the list order, with its kind, service, endpoint and schema', () => {
    // Prepare
    const expected = ACTIONS.map(
      (a) =>
        `| \`${a.name}\` | ${a.kind} | ${a.service} | \`${a.endpoint}\` | [json](schemas/${a.name}.schema.json) |`,
    );

    // Act
    const rows = readmeActionRows();

    // Assess
    expect(rows).toEqual(expected);
  });
});
