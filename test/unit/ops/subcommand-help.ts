import { expect, it } from 'vitest';
import { runOpsCaptured } from '../../support/ops-run';

/**
 * `<group> --help` exits 0 and lists each of the group's `subcommands`, and not `foreign` (a
 * command of another group), so a group's help is its own.
 */
export const itListsSubcommands = (
  group: string,
  subcommands: readonly string[],
  foreign: string,
): void => {
  it(`lists the ${group} subcommands for \`${group} --help\``, async () => {
    // Act
    const help = await runOpsCaptured([group, '--help']);

    // Assess
    expect(help.code).toBe(0);
    for (const command of subcommands) {
      expect(help.stdout).toContain(command);
    }
    expect(help.stdout).not.toContain(foreign);
  });
};
