/**
 * The relative imports of a folder's TypeScript files, read from the import lines themselves:
 * for tests that hold folders to the project's import rules.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './repo-paths';

/** `from '…'`, `import '…'` and `import('…')` specifiers that are relative paths. */
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(?\s*)'(\.{1,2}\/[^']+)'/g;

export interface RelativeImport {
  /** Repository-relative, e.g. `local/run/run.ts`. */
  readonly file: string;
  /** Repository-relative, without extension, e.g. `local/backends/index`. */
  readonly target: string;
  /** `import type …` (or `export type …`): erased from the bundle, no runtime edge. */
  readonly typeOnly: boolean;
}

/** Every relative import of the `.ts` files under `folder` (repository-relative), recursively. */
export const relativeImportsOf = (folder: string): RelativeImport[] =>
  readdirSync(path.join(REPO_ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => {
      const file = path.posix.join(folder, name.split(path.sep).join('/'));
      const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
      return [...text.matchAll(IMPORT)].map((match) => {
        const statement = text.slice(
          Math.max(
            text.lastIndexOf('import', match.index),
            text.lastIndexOf('export', match.index),
          ),
        );
        return {
          file,
          target: path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1] ?? '')),
          typeOnly: /^(?:import|export)\s+type\s/.test(statement),
        };
      });
    });
