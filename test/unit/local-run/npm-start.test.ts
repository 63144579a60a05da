/**
 * `npm start` end to end, as a child process: the example day, the same with faults, and a
 * user's own events. Asserts the printed per-message outcomes and summary, and the exit code.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runNpmStart } from '../../support/npm-start';

const TIMEOUT = 120_000;

const expectedOutcomes = (): Map<string, string> => {
  const content = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'examples', 'expected-outcomes.json'), 'utf8'),
  ) as Record<string, string>;
  return new Map(Object.entries(content).filter(([key]) => !key.startsWith('$')));
};

const writeEvents = (events: unknown[]): string => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'npm-start-')), 'my-events.json');
  writeFileSync(file, JSON.stringify(events));
  return file;
};

describe('npm start', () => {
  it(
    'runs the example day and reports every message with its expected outcome',
    async () => {
      // Prepare
      const expected = expectedOutcomes();

      // Act
      const run = await runNpmStart([]);

      // Assess
      expect(run.code, run.stderr).toBe(0);
      const reported = new Map(run.fates.map((f) => [f.correlationId, f.code]));
      expect(run.fates).toHaveLength(expected.size);
      expect(reported).toEqual(expected);
      // Nothing waits: a status change of a deleted record is kept with no effect, not retried.
      expect(run.totals).toMatchObject({ lost: 0, redriven: 0, skipped: 4, retries: 0 });
      expect(run.stdout).toContain('Result: OK');
      expect(run.stdout).toMatch(/Spring-Renewals\s+0\s+1\s+1\s+0\s+2/);
    },
    TIMEOUT,
  );

  it(
    'with --faults still ends with every message applied or dead-lettered with a reason, readably',
    async () => {
      // Prepare
      const expected = expectedOutcomes();
      const routedIds = [...expected].filter(([, code]) => code !== 'UNROUTED').map(([id]) => id);

      // Act
      const run = await runNpmStart(['--faults']);

      // Assess
      expect(run.code, run.stdout.slice(-2000)).toBe(0);
      expect(run.totals).toMatchObject({ lost: 0, redriven: 0 });
      const finalById = new Map(run.fates.map((f) => [f.correlationId, f.fate]));
      for (const id of routedIds) expect(['applied', 'DLQ'], id).toContain(finalById.get(id));
      expect(run.stdout).toContain('API key rotated');
      // The handlers' own retries are counted under the summary table, not only in the log.
      expect(run.stdout).toMatch(
        /^ {2}total(?: +\d+){8}\n(?: {2}unrouted .*\n)? {2}in-process HTTP retries: [1-9]\d* \(within a receive; the retries column counts SQS redeliveries\)$/m,
      );
      expect(run.stdout).toMatch(
        /^ {2}retry\s+\S+\s+crm-0190-bad-no-client\s+DLQ_SEND_FAILED\s+1\/220$/m,
      );
      // Readable in a 100-column terminal, and no colour codes when stdout is not a terminal.
      expect(run.stdout.split('\n').filter((line) => [...line].length > 100)).toEqual([]);
      expect(run.stdout).not.toContain(`${String.fromCharCode(27)}[`);
    },
    TIMEOUT,
  );

  it(
    'with --events runs the given file without expectations and prints the summary',
    async () => {
      // Prepare
      const file = writeEvents([
        {
          source: 'com.examplecorp.hr',
          'detail-type': 'add-user',
          detail: {
            correlationId: 'mine-1',
            loginUserId: 'zoe.new@example.com',
            firstName: 'Zoe',
            lastName: 'New',
            userTemplateName: 'Agent-Standard',
          },
        },
        {
          Source: 'com.examplecorp.hr',
          DetailType: 'delete-user',
          Detail: JSON.stringify({ correlationId: 'mine-2' }),
        },
      ]);

      // Act
      const run = await runNpmStart(['--events', file]);

      // Assess
      expect(run.code, run.stdout).toBe(0);
      expect(run.fates.map((f) => [f.correlationId, f.fate, f.code])).toEqual([
        ['mine-1', 'applied', 'SUCCESS'],
        ['mine-2', 'DLQ', 'INVALID_MESSAGE'],
      ]);
      expect(run.totals).toEqual({
        received: 2,
        applied: 1,
        already: 0,
        skipped: 0,
        deadLettered: 1,
        redriven: 0,
        lost: 0,
        retries: 0,
      });
      expect(run.stdout).toContain('no expectations');
    },
    TIMEOUT,
  );

  it(
    'with --events exits 1 and names an event that no rule routes',
    async () => {
      // Prepare
      const file = writeEvents([
        {
          source: 'com.examplecorp.crm',
          'detail-type': 'add-user',
          detail: { correlationId: 'wrong-source' },
        },
      ]);

      // Act
      const run = await runNpmStart(['--events', file]);

      // Assess
      expect(run.code).toBe(1);
      expect(run.fates).toEqual([
        expect.objectContaining({ correlationId: 'wrong-source', fate: 'UNROUTED' }),
      ]);
      expect(run.stdout).toMatch(/Result: FAILED — 1 problem/);
      expect(run.stdout).toContain('wrong-source matched no rule');
      // Counts of one read in the singular.
      expect(run.stdout).toContain('(1 file, 1 event)');
      expect(run.stdout).not.toMatch(/\b1 (events|files|problems)\b/);
    },
    TIMEOUT,
  );

  it(
    'with --events on a folder holds the run to its expected outcomes, counting one in the singular',
    async () => {
      // Prepare
      const dir = mkdtempSync(path.join(tmpdir(), 'npm-start-folder-'));
      writeFileSync(
        path.join(dir, 'joiners.json'),
        JSON.stringify([
          {
            source: 'com.examplecorp.hr',
            'detail-type': 'add-user',
            detail: {
              correlationId: 'only-one',
              loginUserId: 'una@example.com',
              firstName: 'Una',
              lastName: 'One',
              userTemplateName: 'Agent-Standard',
            },
          },
        ]),
      );
      writeFileSync(
        path.join(dir, 'expected-outcomes.json'),
        JSON.stringify({ 'only-one': 'SUCCESS' }),
      );

      // Act
      const run = await runNpmStart(['--events', dir]);

      // Assess
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).toMatch(/expected-outcomes\.json \(1 outcome\)/);
      expect(run.stdout).toContain('(1 file, 1 event)');
      expect(run.stdout).toMatch(/^Result: OK\n {2}1 event, 1 applied/m);
      expect(run.stdout).not.toMatch(/\b1 (events|files|outcomes|records|receives)\b/);
    },
    TIMEOUT,
  );

  it(
    'with --events reports every bad entry with its index or line, exits 2 and runs nothing',
    async () => {
      // Prepare
      const dir = mkdtempSync(path.join(tmpdir(), 'npm-start-bad-'));
      const good = { source: 'com.examplecorp.hr', 'detail-type': 'delete-user', detail: {} };
      writeFileSync(
        path.join(dir, '1-day.json'),
        JSON.stringify([good, { Source: 'hr' }, good, { source: 'hr', detail: {} }]),
      );
      writeFileSync(path.join(dir, '2-night.jsonl'), `${JSON.stringify(good)}\n\n[1, 2\n`);

      // Act
      const run = await runNpmStart(['--events', dir]);

      // Assess
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('3 bad entries, nothing was run');
      expect(run.stderr).toMatch(/1-day\.json\[1\]: /);
      expect(run.stderr).toMatch(/1-day\.json\[3\]: /);
      expect(run.stderr).toMatch(/2-night\.jsonl:3: not valid JSON/);
      expect(run.stderr).not.toMatch(/1-day\.json\[[02]\]|2-night\.jsonl:1\b/);
      expect(run.stdout).toBe('');
    },
    TIMEOUT,
  );

  it(
    'exits 2 with a clear message for input it cannot read, and prints usage for --help',
    async () => {
      // Prepare
      const missing = path.join(tmpdir(), 'no-such-events-file.json');

      // Act
      const run = await runNpmStart(['--events', missing]);
      const help = await runNpmStart(['--help']);
      const unknown = await runNpmStart(['--bogus']);

      // Assess
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('no-such-events-file.json: no such file or folder');
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: npm start/);
      expect(help.stdout).toContain('--aws-emulator');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("Unknown option '--bogus'");
    },
    TIMEOUT,
  );

  it.each([7, 22])(
    'with --chaos %i delivers the day shuffled, doubled and concurrently, and every entity converges',
    async (seed) => {
      // Act
      const run = await runNpmStart(['--chaos', String(seed)]);

      // Assess
      expect(run.code, run.stdout).toBe(0);
      expect(run.totals).toMatchObject({ lost: 0, redriven: 0 });
      expect(run.stdout).toMatch(/shuffled with duplicates \(seed \d+\)/);
      const converged = /Converged: (\d+)\/(\d+) entities/.exec(run.stdout);
      expect(converged?.[1]).toBe(converged?.[2]);
      expect(Number(converged?.[2])).toBeGreaterThanOrEqual(15);
      expect(run.stdout).not.toContain('DIFF');
    },
    TIMEOUT,
  );

  it('refuses a --chaos seed that is not a whole number, and a stray argument', async () => {
    // Act
    const badSeed = await runNpmStart(['--chaos', 'soon']);
    const stray = await runNpmStart(['examples']);

    // Assess
    expect(badSeed.code).toBe(2);
    expect(badSeed.stderr).toContain('--chaos takes a whole number as its seed, got "soon"');
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('Unexpected argument "examples"');
  });
});
