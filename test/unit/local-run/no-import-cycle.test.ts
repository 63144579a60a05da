/**
 * The local run drives its backends through one interface (local/run/backend.ts); the AWS
 * emulator implements it. Only the entry point (local/start.ts) knows both, so neither folder
 * imports the other in both directions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const LOCAL = path.resolve(import.meta.dirname, '..', '..', '..', 'local');

const importsOf = (folder: string): string[] =>
  readdirSync(path.join(LOCAL, folder))
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(path.join(LOCAL, folder, file), 'utf8').matchAll(/from '([^']+)'/g)].map(
        (match) => `${folder}/${file} → ${match[1]}`,
      ),
    );

describe('local/ layout', () => {
  it('keeps local/run free of the AWS emulator: the entry point composes them', () => {
    // Act
    const runToEmulator = importsOf('run').filter((line) => line.includes('aws-emulator'));
    const emulatorToRun = importsOf('aws-emulator').filter((line) => line.includes('/run/'));

    // Assess
    expect(runToEmulator).toEqual([]);
    expect(emulatorToRun.length).toBeGreaterThan(0); // it implements the run's Backend
  });
});
