import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout: NodejsFunction's `projectRoot`, and where `cdk` runs. */
export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * Build output of the bench. It sits inside the project tree on purpose: the workers keep their
 * packages external, and Node resolves those imports by walking up to the project's
 * node_modules. Under node_modules it is ignored by git. One folder per checkout: git worktrees
 * may share one node_modules, and a bench starts by emptying its folder.
 */
export const OUT_DIR = join(
  PROJECT_ROOT,
  'node_modules',
  '.cache',
  'contact-center-sync-bench',
  createHash('sha256').update(PROJECT_ROOT).digest('hex').slice(0, 8),
);

export const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
