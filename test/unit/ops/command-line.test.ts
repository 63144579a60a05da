/** Command-line handling that fails (or helps) before any AWS call or config is needed. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTION_NAMES } from '../../../lambdas/actions';
import { runOpsCaptured } from '../../support/ops-run';
import { itListsSubcommands } from './subcommand-help';

describe('ops command line', () => {
  it('prints the general help for no arguments and for --help', async () => {
    // Act
    const bare = await runOpsCaptured([]);
    const help = await runOpsCaptured(['--help']);

    // Assess
    expect(bare.code).toBe(0);
    expect(help.stdout).toBe(bare.stdout);
    for (const command of ['send <action>', 'dlq list', 'dlq redrive', 'dlq export']) {
      expect(bare.stdout).toContain(command);
    }
    expect(bare.stdout).toContain(ACTION_NAMES.join(', '));
  });

  it('prints each command help with its own options', async () => {
    // Act
    const send = await runOpsCaptured(['send', '--help']);
    const list = await runOpsCaptured(['help', 'dlq', 'list']);
    const exportHelp = await runOpsCaptured(['dlq', 'export', 'add-user', '-h']);

    // Assess
    expect(send.stdout).toContain('--event-bus');
    expect(list.stdout).toContain('--show-body');
    expect(exportHelp.stdout).toContain('--force');
    expect([send.code, list.code, exportHelp.code]).toEqual([0, 0, 0]);
  });

  itListsSubcommands('dlq', ['dlq list', 'dlq redrive', 'dlq export'], 'send <action>');

  it.each([
    [['frobnicate'], 'Unknown command "frobnicate"'],
    [['dlq'], 'dlq <subcommand>'],
    [['dlq', 'purge', 'add-user'], 'Unknown command "dlq purge"'],
    [['send', 'add-user'], 'Usage: npm run ops -- send <action> <file|->'],
    [['dlq', 'list'], 'Valid actions: add-or-update-campaign-record'],
    [['dlq', 'list', 'add-user', 'extra'], 'Usage: npm run ops -- dlq list'],
    [['dlq', 'list', 'add-user', '--max', '0'], '--max must be a whole number'],
    [['dlq', 'list', 'add-user', '--force'], '--force does not apply to dlq list'],
    [['send', 'add-user', 'f.json', '--source', 'crm'], '--source only applies with --event-bus'],
    [['dlq', 'list', 'add-user', '--bogus'], "Unknown option '--bogus'"],
  ])('rejects %j with exit 2: %s', async (argv, message) => {
    // Act
    const run = await runOpsCaptured(argv);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  it('rejects a bulk CSV whose header it cannot map with exit 2, naming the column', async () => {
    // Prepare
    const folder = await mkdtemp(join(tmpdir(), 'ops-csv-'));
    const file = join(folder, 'users.csv');
    await writeFile(file, 'loginUserId,first.Name\nx@example.com,F\n');

    // Act
    const run = await runOpsCaptured(['send', 'add-user', file, '--bulk']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('CSV column 2 "first.Name" is neither a message field');
    await rm(folder, { recursive: true });
  });

  it('names every problem of an unknown config', async () => {
    // Act
    const run = await runOpsCaptured(['dlq', 'list', 'add-user', '--config', 'nope']);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Cannot use config "nope"');
    expect(run.stderr).toContain('available: example');
  });
});

describe('reconcile command line: every error exits 1 (2 means "changes")', () => {
  it.each([
    [
      'unknown option',
      ['reconcile', 'plan', 'm.json', '--no-such-option'],
      "Unknown option '--no-such-option'",
    ],
    [
      'option of another command',
      ['reconcile', 'plan', 'm.json', '--force'],
      '--force does not apply to reconcile plan',
    ],
    [
      'missing argument (plan)',
      ['reconcile', 'plan'],
      'Usage: npm run ops -- reconcile plan <manifest>',
    ],
    [
      'missing argument (apply)',
      ['reconcile', 'apply'],
      'Usage: npm run ops -- reconcile apply <plan>',
    ],
    [
      'extra argument',
      ['reconcile', 'plan', 'm.json', 'extra.json'],
      'Usage: npm run ops -- reconcile plan',
    ],
    [
      'bad option value',
      ['reconcile', 'apply', 'p.jsonl', '--allow-deletes', 'all'],
      '--allow-deletes must be the number',
    ],
    ['unknown subcommand', ['reconcile', 'destroy'], 'Unknown command "reconcile destroy"'],
    [
      'unreadable manifest',
      ['reconcile', 'plan', '/nonexistent/m.manifest.json'],
      'Cannot read the manifest /nonexistent/m.manifest.json',
    ],
    [
      'unreadable plan',
      ['reconcile', 'apply', '/nonexistent/p.plan.jsonl'],
      'Cannot read the plan /nonexistent/p.plan.jsonl',
    ],
  ])('%s: exit 1', async (_kind, argv, message) => {
    // Act
    const run = await runOpsCaptured(argv);

    // Assess
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });
});
