/**
 * The help covers every command and every option it accepts, and the brake commands' own
 * command-line errors (before any AWS call).
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS, type CommandName } from '../../../ops/main';
import { runOpsCaptured } from '../../support/ops-run';
import { itListsSubcommands } from './subcommand-help';

const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

describe('ops help', () => {
  it('lists every command in the general help', async () => {
    // Act
    const help = await runOpsCaptured(['--help']);

    // Assess
    for (const name of COMMAND_NAMES) expect(help.stdout).toContain(`  ${name} `);
  });

  it.each(COMMAND_NAMES)('%s: its help explains every option it accepts', async (name) => {
    // Act
    const help = await runOpsCaptured([...name.split(' '), '--help']);

    // Assess
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`Usage: npm run ops -- ${COMMANDS[name].usage}`);
    for (const option of COMMANDS[name].options) {
      // Explained on a line of its own (`  --name …`), not only named in the usage line.
      expect(help.stdout).toMatch(new RegExp(`\\n {2}--${option}(?![\\w-])`));
    }
  });

  itListsSubcommands('brake', ['brake status', 'brake release', 'brake discard'], 'dlq list');
});

describe('brake command line', () => {
  it.each([
    [['brake', 'release'], 2, 'Valid actions: add-or-update-campaign-record'],
    [['brake', 'release', 'delete-user', '--rate', '0'], 2, '--rate must be messages per second'],
    [
      ['brake', 'release', 'delete-user', '--rate', 'fast'],
      2,
      '--rate must be messages per second',
    ],
    [
      ['brake', 'discard', 'delete-user', '--rate', '5'],
      2,
      '--rate does not apply to brake discard',
    ],
    [['brake', 'status', 'delete-user', '--keep-tripped'], 2, '--keep-tripped does not apply'],
    [['brake', 'release', 'add-user'], 1, 'add-user has no mass-delete brake (it removes nothing)'],
  ] as const)('rejects %j with exit %i: %s', async (argv, code, message) => {
    // Act
    const run = await runOpsCaptured(argv);

    // Assess
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });
});
