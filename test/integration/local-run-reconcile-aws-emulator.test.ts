/**
 * `npm start -- --reconcile --aws-emulator`: the same drift and repairs with the queues, rules
 * and ledger in moto (the run starts its own; the global setup has installed it).
 */
import { describe, expect, it } from 'vitest';
import { runNpmStart } from '../support/npm-start';

describe('npm start -- --reconcile --aws-emulator', () => {
  it('repairs the seeded drift through moto and plans no changes after', async () => {
    // Act
    const run = await runNpmStart(['--reconcile', '--aws-emulator']);

    // Assess
    expect(run.code, `${run.stdout.slice(-3000)}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/queues {4}moto server http:\/\/127\.0\.0\.1:\d+/);
    expect(run.stdout).toContain('drift repaired: 6/6');
    expect(run.stdout).toContain('Result: OK (the second plan has no changes)');
  });
});
