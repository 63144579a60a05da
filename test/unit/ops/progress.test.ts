import { describe, expect, it } from 'vitest';
import { createProgress, renderBar } from '../../../ops/progress';
import { CapturedWriter } from '../../support/ops-run';

class Terminal extends CapturedWriter {
  readonly isTTY = true;
  readonly columns = 100;
}

describe('progress', () => {
  it('prints a plain line every 10 messages and at the total when not on a terminal', () => {
    // Prepare
    const writer = new CapturedWriter();
    const progress = createProgress(writer, 'redrive add-user');

    // Act
    for (let moved = 1; moved <= 12; moved += 1) progress.update({ moved, failed: 0, total: 12 });
    progress.note('FAILED m-1: boom');
    progress.finish();

    // Assess
    expect(writer.text).toBe(
      'redrive add-user: 10/12 (moved 10, failed 0)\n' +
        'redrive add-user: 12/12 (moved 12, failed 0)\n' +
        'FAILED m-1: boom\n',
    );
  });

  it('redraws one bar line on a terminal, keeps notes above it and clears it at the end', () => {
    // Prepare
    const writer = new Terminal();
    const progress = createProgress(writer, 'redrive');

    // Act
    progress.update({ moved: 1, failed: 0, total: 4 });
    progress.note('FAILED m-2: boom');
    progress.update({ moved: 1, failed: 1, total: 4 });
    progress.finish();

    // Assess
    const frames = writer.text.split('\r\u001b[2K');
    expect(frames.filter((f) => f.startsWith('['))).toHaveLength(3);
    expect(writer.text).toContain('FAILED m-2: boom\n');
    expect(frames.at(-2)).toContain('redrive: 2/4 (moved 1, failed 1)');
    expect(writer.text.endsWith('\r\u001b[2K')).toBe(true);
  });

  it('fills the bar in proportion, and fully when the total was underestimated', () => {
    // Act
    const half = renderBar({ moved: 2, failed: 0, total: 4 }, 10);
    const over = renderBar({ moved: 5, failed: 1, total: 4 }, 10);

    // Assess
    expect(half).toBe('[#####-----]');
    expect(over).toBe('[##########]');
  });
});
