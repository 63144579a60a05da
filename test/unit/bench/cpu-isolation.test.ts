import { describe, expect, it } from 'vitest';
import { describeIsolation, onMeasuredCpu, parseCpuList } from '../../../bench/cpu-isolation';

describe('parseCpuList', () => {
  it.each([
    ['0', [0]],
    ['0,1', [0, 1]],
    ['0-3', [0, 1, 2, 3]],
    ['0-2,5,7-8\n', [0, 1, 2, 5, 7, 8]],
  ])('reads "%s" as taskset writes it', (list, cpus) => {
    // Act / Assess
    expect(parseCpuList(list)).toEqual(cpus);
  });

  it.each(['a', '3-1', '0-x'])('refuses "%s", naming it', (list) => {
    // Act / Assess
    expect(() => parseCpuList(list)).toThrow(`not a CPU list: "${list}"`);
  });
});

describe('onMeasuredCpu', () => {
  const isolation = { measured: '0', rest: '1', all: '0,1' };

  it('starts the command through taskset on the measured CPU', () => {
    // Act
    const started = onMeasuredCpu(isolation, '/usr/bin/node', ['worker.mjs', '{}']);

    // Assess
    expect(started).toEqual({
      command: 'taskset',
      argv: ['-c', '0', '/usr/bin/node', 'worker.mjs', '{}'],
    });
  });

  it('starts it as it is without isolation, and the results say the CPUs were shared', () => {
    // Act
    const started = onMeasuredCpu(undefined, '/usr/bin/node', ['worker.mjs']);

    // Assess
    expect(started).toEqual({ command: '/usr/bin/node', argv: ['worker.mjs'] });
    expect(describeIsolation(undefined)).toMatch(/^not isolated/);
    expect(describeIsolation(isolation)).toMatch(/alone on CPU 0; .* on CPU 1 meanwhile$/);
  });
});
