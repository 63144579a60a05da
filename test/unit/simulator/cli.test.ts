import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { PROVISIONING_PATH_PREFIX } from '../../../local/simulator';

const ROOT = resolve(import.meta.dirname, '../../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');

const firstLine = async (child: ChildProcess): Promise<string> => {
  if (!child.stdout) throw new Error('no stdout');
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  return line;
};

describe('simulator CLI', () => {
  let child: ChildProcess | undefined;

  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('prints its base URL once listening, answers requests with the given settings, stops on SIGTERM', async () => {
    // Prepare
    child = spawn(
      TSX,
      [
        'local/simulator/cli.ts',
        '--port',
        '0',
        '--api-key',
        'cli-key',
        '--platform-code',
        'CLIPLATFORM',
        '--company-code',
        'cli-co',
        '--environment',
        'cli-env',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );

    // Act
    const line = await firstLine(child);
    const baseUrl = line.replace('simulator listening on ', '');
    const response = await fetch(`${baseUrl}${PROVISIONING_PATH_PREFIX}query-existence`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-sc-platform-code': 'CLIPLATFORM',
        'X-sc-company-code': 'cli-co',
        'X-sc-company-environment': 'cli-env',
        'X-sc-secrets-region': 'us-east-1',
        'X-sc-company-api-key': 'cli-key',
      },
      body: JSON.stringify({
        tenant: { platform: 'CLIPLATFORM', companyCode: 'cli-co', environment: 'cli-env' },
        loginUserId: 'nobody',
      }),
    });
    const body = (await response.json()) as { result: string };
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];

    // Assess
    expect(line).toMatch(/^simulator listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(response.status).toBe(200);
    expect(body.result).toBe('NOT_FOUND');
    expect(code).toBe(0);
  }, 30_000);

  it.each([
    [['--error-rate', 'lots'], '--error-rate must be a number'],
    [['--error-rate', '2'], '--error-rate must be between 0 and 1'],
    [['--latency-ms=-5'], '--latency-ms must be a non-negative number'],
    [
      ['--error-rate', '0.6', '--throttle-rate', '0.6'],
      'the --*-rate flags must add up to at most 1',
    ],
  ])(
    'exits 2 naming the flag the user typed for %j',
    async (flags, message) => {
      // Prepare
      child = spawn(TSX, ['local/simulator/cli.ts', '--port', '0', ...flags], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });

      // Act
      const [code] = (await once(child, 'exit')) as [number | null];

      // Assess
      expect(code).toBe(2);
      expect(stderr).toContain(message);
      expect(stderr).not.toContain('fault setting');
    },
    30_000,
  );

  it('stops when the npm process that started it is killed', async () => {
    // Prepare: `npm run simulator` as a user starts it in the background.
    child = spawn('npm', ['run', '-s', 'simulator', '--', '--port', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await firstLine(child);
    const baseUrl = line.replace('simulator listening on ', '');
    const answers = async (): Promise<boolean> =>
      fetch(`${baseUrl}/`, { method: 'POST', signal: AbortSignal.timeout(1000) }).then(
        () => true,
        () => false,
      );
    const before = await answers();

    // Act: kill npm only, as `kill <pid of npm run simulator &>` does.
    child.kill('SIGTERM');
    let stillAnswering = true;
    for (let i = 0; i < 40 && stillAnswering; i += 1) {
      await new Promise((done) => setTimeout(done, 250));
      stillAnswering = await answers();
    }

    // Assess
    expect(before).toBe(true);
    expect(stillAnswering).toBe(false);
  }, 30_000);
});
