/**
 * `npm start -- --scim` as a person runs it: the local SCIM endpoint's URL, token and simulator
 * are printed, Entra ID's and Okta's sequences get the statuses their IdPs expect, the platform is
 * checked after each request, and the run ends with `Result: OK`.
 */
import { describe, expect, it } from 'vitest';
import { runNpmStart } from '../../support/npm-start';

const TIMEOUT = 120_000;

/** `  ok 201 Entra ID create   POST /Users` → its status, IdP and label. */
const STEP_LINE = /^ {2}(ok|✘ ) (\d{3}) (Entra ID|Okta) +(.+?) {2,}(GET|POST|PUT|PATCH|DELETE) /;

describe('npm start -- --scim', () => {
  it(
    'prints the endpoint, token and simulator, replays both IdPs with the expected statuses and ends OK',
    async () => {
      // Act
      const run = await runNpmStart(['--scim']);

      // Assess
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/^ {2}endpoint +http:\/\/127\.0\.0\.1:\d+\/scim\/v2$/m);
      expect(run.stdout).toMatch(/^ {2}token +[A-Za-z0-9_-]{43} /m);
      expect(run.stdout).toMatch(/^ {2}platform +simulator http:\/\/127\.0\.0\.1:\d+$/m);
      const steps = run.stdout.split('\n').flatMap((line) => {
        const match = STEP_LINE.exec(line);
        return match ? [`${match[3]} ${match[2]} ${match[1]} ${match[4]}`] : [];
      });
      expect(steps).toEqual([
        'Entra ID 200 ok filter by userName',
        'Entra ID 201 ok create',
        'Entra ID 200 ok PATCH Replace displayName',
        'Entra ID 200 ok soft delete (active "False")',
        'Entra ID 200 ok reactivate (no path)',
        'Entra ID 204 ok delete',
        'Okta 200 ok test connection (list)',
        'Okta 200 ok filter by userName',
        'Okta 201 ok create (with a password)',
        'Okta 200 ok PUT the whole user',
        'Okta 200 ok deactivate (PUT active false)',
      ]);
      expect(run.stdout).toContain('Result: OK');
      expect(run.stdout).toContain('0 users on the platform at the end');
      expect(run.stdout).not.toContain('Serving');
    },
    TIMEOUT,
  );

  it.each([
    [['--serve'], '--serve only applies with --scim'],
    [['--scim', '--faults'], '--scim runs its own requests; it takes only --serve'],
    [['--scim', '--reconcile'], '--scim runs its own requests; it takes only --serve'],
  ])(
    'refuses %j with exit code 2',
    async (args, message) => {
      // Act
      const run = await runNpmStart(args);

      // Assess
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
    },
    TIMEOUT,
  );
});
