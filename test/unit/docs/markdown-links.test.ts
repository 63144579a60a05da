/**
 * Every relative link in the README and the docs reaches a file that exists, and every
 * `#anchor` a heading there (GitHub's heading ids), so a renamed section or a moved file cannot
 * leave a reader at a dead end.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/repo-paths';

/** The documents held to this: the README, docs/ and the bench's pages. */
const DOCS = [
  'README.md',
  ...['docs', 'bench'].flatMap((folder) =>
    readdirSync(path.join(REPO_ROOT, folder))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `${folder}/${name}`),
  ),
];

/** The lines outside fenced code blocks, where links and headings are. */
const prose = (file: string): string[] => {
  let fenced = false;
  return readFileSync(path.join(REPO_ROOT, file), 'utf8')
    .split('\n')
    .filter((line) => {
      if (line.trimStart().startsWith('```')) fenced = !fenced;
      return !fenced && !line.trimStart().startsWith('```');
    });
};

/** GitHub's ids for a document's headings: lowercased, punctuation dropped, `-1` on repeats. */
const anchorsOf = (file: string): Set<string> => {
  const seen = new Map<string, number>();
  const ids = new Set<string>();
  for (const line of prose(file)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    ids.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return ids;
};

/** Where the relative links in `lines` of `file` fail to lead: `file: target (why)`. */
const deadLinks = (file: string, lines: readonly string[] = prose(file)): string[] =>
  lines.flatMap((line) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1] ?? '')
      .filter((target) => !/^[a-z]+:/i.test(target))
      .flatMap((target) => {
        const [pathPart = '', anchor] = target.split('#');
        const resolved =
          pathPart === '' ? file : path.posix.join(path.posix.dirname(file), pathPart);
        if (!existsSync(path.join(REPO_ROOT, resolved)))
          return [`${file}: ${target} (no such file)`];
        if (anchor === undefined || !resolved.endsWith('.md')) return [];
        return anchorsOf(resolved).has(anchor) ? [] : [`${file}: ${target} (no such heading)`];
      }),
  );

describe('links in the README and docs', () => {
  it('finds a missing file and a missing heading (the check sees something)', () => {
    // Prepare
    const lines = [
      'see [decisions](decisions.md#ordering-and-convergence) and [the top](#layout),',
      'not [gone](decisions.md#decisions-where-the-spec-is-silent) or [lost](nowhere.md)',
      'nor `[code](is-not-a-link.md)`',
    ];

    // Act
    const dead = deadLinks('docs/layout.md', lines);

    // Assess
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'docs/decisions.md']));
    expect(dead).toEqual([
      'docs/layout.md: decisions.md#decisions-where-the-spec-is-silent (no such heading)',
      'docs/layout.md: nowhere.md (no such file)',
    ]);
  });

  it.each(DOCS)('%s: every relative link and anchor resolves', (file) => {
    // Act
    const dead = deadLinks(file);

    // Assess
    expect(dead).toEqual([]);
  });
});
