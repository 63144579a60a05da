/**
 * The local run's folders import each other in one direction only: the run reaches its
 * backends through `local/backends/index.ts`, the backends build on the in-memory stand-ins
 * and the moto machinery, and those import neither. Read from the import lines themselves.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativeImportsOf } from '../../support/relative-imports';
import { REPO_ROOT } from '../../support/repo-paths';

/** The folders held to these rules: each folder under local/, and the shared test kit. */
const FOLDERS = [
  ...readdirSync(path.join(REPO_ROOT, 'local'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `local/${entry.name}`),
  'testkit',
];

const ALL = FOLDERS.flatMap(relativeImportsOf);
const folderOf = (target: string): string | undefined =>
  FOLDERS.find((folder) => target === folder || target.startsWith(`${folder}/`));

/** Folder → the other held folders it imports. */
const graph = new Map(
  FOLDERS.map((folder) => [
    folder,
    new Set(
      ALL.filter((i) => folderOf(i.file) === folder)
        .map((i) => folderOf(i.target))
        .filter((to): to is string => to !== undefined && to !== folder),
    ),
  ]),
);

/** Every cycle of the folder graph, each as the path that closes it. */
const cycles = (): string[][] => {
  const found: string[][] = [];
  const walk = (folder: string, trail: readonly string[]): void => {
    const start = trail.indexOf(folder);
    if (start !== -1) {
      found.push([...trail.slice(start), folder]);
      return;
    }
    for (const next of graph.get(folder) ?? []) walk(next, [...trail, folder]);
  };
  for (const folder of FOLDERS) walk(folder, []);
  return found;
};

describe('import layers of the local run', () => {
  it('reads the import lines of every folder (the check sees something)', () => {
    // Assess
    expect(FOLDERS).toEqual(
      expect.arrayContaining(['local/run', 'local/backends', 'local/aws-emulator', 'testkit']),
    );
    expect(graph.get('local/run')).toContain('local/backends');
    expect(graph.get('local/backends')).toContain('local/aws-emulator');
  });

  it('has no import cycle between folders', () => {
    // Act
    const found = cycles();

    // Assess
    expect(found).toEqual([]);
  });

  it.each([
    ['local/aws-emulator', ['local/run', 'local/backends']],
    ['local/in-memory', ['local/run', 'local/backends']],
    ['local/backends', ['local/run']],
    ['testkit', ['local/run', 'local/backends', 'local/in-memory', 'local/aws-emulator']],
  ])('%s imports nothing from %j', (folder, forbidden) => {
    // Act
    const crossing = ALL.filter(
      (i) => folderOf(i.file) === folder && forbidden.includes(folderOf(i.target) ?? ''),
    );

    // Assess
    expect(crossing).toEqual([]);
  });

  it('the run reaches the backends only through local/backends/index.ts', () => {
    // Act
    const direct = ALL.filter(
      (i) =>
        folderOf(i.file) === 'local/run' &&
        (folderOf(i.target) === 'local/aws-emulator' ||
          (folderOf(i.target) === 'local/backends' &&
            !['local/backends', 'local/backends/index'].includes(i.target))),
    );

    // Assess
    expect(direct).toEqual([]);
  });
});
