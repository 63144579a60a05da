/**
 * Progress while the AWS emulator is prepared (a first run installs moto for ~30 s): every
 * step with its elapsed time, and a sign of life while a step lasts, on a terminal and off one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HEARTBEAT_MS, startPreparationProgress } from '../../../local/run/preparation-progress';

/** Starts the progress on a recording writer (a terminal or not); `writes` is what it printed. */
const startRecorded = (isTTY: boolean) => {
  const writes: string[] = [];
  const writer = { isTTY, write: (text: string) => writes.push(text) };
  return { writes, progress: startPreparationProgress(writer, 'Preparing the AWS emulator…') };
};

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('preparation progress without a terminal', () => {
  it('prints each step with its elapsed time, and a line every few seconds while one lasts', () => {
    // Prepare
    const { writes, progress } = startRecorded(false);

    // Act
    progress.step('creating the virtualenv .tools/venv');
    vi.advanceTimersByTime(2_000);
    progress.step('installing moto with pip');
    progress.detail('collecting werkzeug (3 packages so far)');
    vi.advanceTimersByTime(2 * HEARTBEAT_MS);
    progress.step('starting moto server');
    progress.finish();
    vi.advanceTimersByTime(3 * HEARTBEAT_MS);

    // Assess
    expect(writes.join('')).toBe(
      [
        'Preparing the AWS emulator…',
        '  creating the virtualenv .tools/venv (0 s)',
        '  installing moto with pip (2 s)',
        '  … installing moto with pip: collecting werkzeug (3 packages so far) (7 s)',
        '  … installing moto with pip: collecting werkzeug (3 packages so far) (12 s)',
        '  starting moto server (12 s)',
        '',
      ].join('\n'),
    );
  });
});

describe('preparation progress on a terminal', () => {
  it('redraws one status line in place, keeps the steps, and clears it when done', () => {
    // Prepare
    const { writes, progress } = startRecorded(true);
    progress.step('installing moto with pip');

    // Act
    vi.advanceTimersByTime(1_000);
    progress.detail('collecting moto (1 package so far)');
    vi.advanceTimersByTime(1_000);
    progress.finish();
    vi.advanceTimersByTime(5_000);

    // Assess
    const clear = '\r\u001b[2K';
    expect(writes).toEqual([
      'Preparing the AWS emulator…\n',
      '  installing moto with pip (0 s)\n',
      `${clear}  … installing moto with pip (1 s)`,
      `${clear}  … installing moto with pip: collecting moto (1 package so far) (2 s)`,
      clear,
    ]);
  });
});
