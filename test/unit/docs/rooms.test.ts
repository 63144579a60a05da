/**
 * The folders are the map of the architecture (docs/layout.md), and each room says in its own
 * README.md what may live there. This holds every code folder to having one, headed by its own
 * path, and to being named in docs/layout.md, so a new room cannot appear without both.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/repo-paths';

/** The top-level folders that hold code; each folder under them is a room. */
const CODE_ROOTS = ['lambdas', 'lib', 'ops', 'local', 'testkit', 'bench', 'scripts', 'bin'];

const roomsUnder = (folder: string): string[] => [
  folder,
  ...readdirSync(path.join(REPO_ROOT, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .flatMap((entry) => roomsUnder(`${folder}/${entry.name}`)),
];

const ROOMS = CODE_ROOTS.flatMap(roomsUnder);

/** The README's heading: the room's path below `lambdas/` (or the bench's title), as written today. */
const headingOf = (room: string): string =>
  readFileSync(path.join(REPO_ROOT, room, 'README.md'), 'utf8').split('\n')[0] ?? '';

describe('rooms', () => {
  it.each(ROOMS)('%s opens with a README.md that says what lives there', (room) => {
    // Prepare
    const name = room.startsWith('lambdas/') ? room.slice('lambdas/'.length) : room;

    // Act
    const text = readFileSync(path.join(REPO_ROOT, room, 'README.md'), 'utf8');

    // Assess
    expect([`# ${name}`, '# Bench']).toContain(headingOf(room));
    expect(text.split('\n').slice(1).join(' ').trim().length).toBeGreaterThan(40);
  });

  it('are each named in docs/layout.md', () => {
    // Prepare
    const layout = readFileSync(path.join(REPO_ROOT, 'docs/layout.md'), 'utf8');

    // Act
    const missing = ROOMS.filter((room) => !layout.includes(`${path.basename(room)}/`));

    // Assess
    expect(missing).toEqual([]);
  });
});
