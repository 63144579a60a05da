/** `npm run bench` answers --help and a wrong option with usage, not a stack trace. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../support/run-process';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

const runBench = (args: readonly string[]) =>
  runProcess(TSX, ['bench/main.ts', ...args], { cwd: ROOT });

describe('bench command line', () => {
  it('prints usage with --quick for --help and exits 0', async () => {
    // Act
    const run = await runBench(['--help']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: npm run bench');
    expect(run.stdout).toContain('--quick');
    expect(run.stderr).toBe('');
  }, 30_000);

  it('names an unknown option, prints usage and exits 2 without a stack trace', async () => {
    // Act
    const run = await runBench(['--fast']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unknown option '--fast'");
    expect(run.stderr).toContain('Usage: npm run bench');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);

  it('refuses a modelled latency that is not a number of milliseconds, before measuring anything', async () => {
    // Act
    const run = await runBench(['--platform-ms', 'slow']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--platform-ms must be a number of milliseconds, got "slow"');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);
});
