/**
 * The repository's root and its installed tools, for tests that run the project's commands as
 * child processes, as a user would.
 */
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** `node_modules/.bin`: the project's pinned tools, its Node 24 among them. */
export const REPO_BIN = path.join(REPO_ROOT, 'node_modules', '.bin');

/** The path of one of the project's tools (`tsx`, `cdk`, `node`…). */
export const repoTool = (name: string): string => path.join(REPO_BIN, name);
