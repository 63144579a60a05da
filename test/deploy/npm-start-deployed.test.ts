/**
 * `npm start -- --deployed` as a person runs it: config/example.json's stack deployed into its
 * own MiniStack, the example day put on the deployed bus, every message's fate observed through
 * the deployed functions' logs, DLQs and result events, and the same verdict as `npm start`.
 * It deploys its own stack (the example config's sources and tenant), not the project's one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runNpmStart } from '../support/npm-start';

const expectedOutcomes = (): Map<string, string> => {
  const content = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'examples', 'expected-outcomes.json'), 'utf8'),
  ) as Record<string, string>;
  return new Map(Object.entries(content).filter(([key]) => !key.startsWith('$')));
};

/** The verdict's counts, as one line (the output wraps it). */
const countsOf = (stdout: string): string | undefined =>
  /Result: OK\n((?: {2}.*\n)+)/
    .exec(stdout)?.[1]
    ?.split('\n')
    .map((line) => line.trim())
    .join(' ')
    .trim();

describe('npm start -- --deployed', () => {
  it('runs the example day through the deployed stack with every expected outcome', async () => {
    // Prepare
    const expected = expectedOutcomes();

    // Act
    const run = await runNpmStart(['--deployed']);

    // Assess
    expect(run.code, `${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}`).toBe(0);
    expect(new Map(run.fates.map((f) => [f.correlationId, f.code]))).toEqual(expected);
    expect(run.fates).toHaveLength(expected.size);
    expect(run.stdout).toMatch(/queues {4}stack ContactCenterSync-prod deployed in MiniStack/);
    // The same counts as the in-memory run (README.md quotes them).
    expect(countsOf(run.stdout)).toBe(
      '34 events, 26 applied (2 already in place, 4 skipped as stale, duplicate or without effect), 6 dead-lettered with a reason, 2 unrouted, 0 in a DLQ without a reason, 0 lost; expectations met: 34/34',
    );
    // The writes reached the simulator through the deployed functions.
    expect(run.stdout).toMatch(/Spring-Renewals\s+0\s+1\s+1\s+0\s+2/);
    // What it cannot see, it says.
    expect(run.stdout).toContain('in-process HTTP retries: not observed');
    expect(run.stdout.split('\n').filter((line) => [...line].length > 100)).toEqual([]);
  }, 300_000);

  it('is in the usage, and refuses flags it cannot honour through a deployed stack', async () => {
    // Act
    const help = await runNpmStart(['--help']);
    const run = await runNpmStart(['--deployed', '--faults']);

    // Assess
    expect(help.stdout).toMatch(/^ {2}--deployed {17}deploys config\/example\.json's stack/m);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--deployed runs the events through the deployed stack');
  });
});
