/**
 * `npm start -- --reconcile` as a person runs it: the seeded drift is planned, applied through
 * the real handlers and planned again with no changes.
 */
import { describe, expect, it } from 'vitest';
import { runNpmStart } from '../../support/npm-start';

describe('npm start -- --reconcile', () => {
  it('prints the plans, repairs every drifting entity and ends with a plan of no changes', async () => {
    // Act
    const run = await runNpmStart(['--reconcile']);

    // Assess
    expect(run.code, `${run.stdout.slice(-3000)}\n${run.stderr}`).toBe(0);
    for (const entity of [
      /create +1\n +user:nina\.new@example\.com/, // a joiner the HR system never sent
      /delete +1\n +user:leo\.leaver@example\.com/, // a leaver still provisioned
      /unmanaged +1\n +user:ursula\.unmanaged@example\.com/, // never ours: reported, kept
      /create +1\n +record:Spring-Renewals:C-2004/, // a record missing
      /record:Spring-Renewals:C-2001 {2}\(data\.Name; line 2\)/, // one edited by hand
      /delete +1\n +record:Spring-Renewals:C-2002/, // one extra
      /sweep Bulk-Intake: 1200 records in \d+ searches, split on CrmId, complete/, // > 1000
    ]) {
      expect(run.stdout).toMatch(entity);
    }
    expect(run.stdout).toContain('drift repaired: 6/6');
    expect(run.stdout.split('Plan again')[1]?.match(/No changes/g)).toHaveLength(2);
  });

  it('refuses flags that would change its drift', async () => {
    // Act
    const run = await runNpmStart(['--reconcile', '--faults']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--reconcile runs its own drift; it takes only --aws-emulator');
  });
});
