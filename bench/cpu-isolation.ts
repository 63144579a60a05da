/**
 * The measured container alone on one CPU, and what answers it (this bench process with its
 * DynamoDB and Secrets Manager fakes, the simulator process) on the others. In Lambda those
 * services never run on the function's vCPU; on this bench's machine they would take turns
 * with the function on the same cores, and a batch with the ledger, whose 20 DynamoDB requests
 * wake the fake while the platform's wake the simulator, would be billed for their CPU too.
 * Linux only (`taskset`, util-linux); with one CPU, or without taskset, nothing is pinned and
 * the results say so.
 */
import { execFileSync } from 'node:child_process';

export interface CpuIsolation {
  /** The CPU the measured process runs on, as taskset writes a list (`0`). */
  readonly measured: string;
  /** The CPUs everything else runs on while it is measured (`1`, `1-3`). */
  readonly rest: string;
  /** The CPUs the bench was given, to hand back afterwards. */
  readonly all: string;
}

/** `0-2,5` → [0, 1, 2, 5]. */
export const parseCpuList = (list: string): number[] =>
  list
    .trim()
    .split(',')
    .filter((part) => part !== '')
    .flatMap((part) => {
      const [from, to = from] = part.split('-').map(Number);
      if (from === undefined || to === undefined || !(Number.isInteger(from) && to >= from)) {
        throw new Error(`not a CPU list: "${list}"`);
      }
      return Array.from({ length: to - from + 1 }, (_, i) => from + i);
    });

/** `taskset -pc` prints `pid 42's current affinity list: 0,1`. */
const affinityOf = (pid: number): number[] => {
  const printed = execFileSync('taskset', ['-p', '-c', String(pid)], { encoding: 'utf8' });
  const list = /list:\s*(\S+)/.exec(printed)?.[1];
  if (list === undefined) throw new Error(`taskset printed no affinity list: ${printed.trim()}`);
  return parseCpuList(list);
};

/** The split of the CPUs this process may use, or undefined where it cannot be made. */
export const cpuIsolation = (): CpuIsolation | undefined => {
  if (process.platform !== 'linux') return undefined;
  let cpus: number[];
  try {
    cpus = affinityOf(process.pid);
  } catch {
    return undefined;
  }
  const [measured, ...rest] = cpus;
  if (measured === undefined || rest.length === 0) return undefined;
  return { measured: String(measured), rest: rest.join(','), all: cpus.join(',') };
};

/** Every thread of `pid` onto `cpus` (threads it starts later inherit it). */
const pin = (pid: number, cpus: string): void => {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
};

/** Runs `measure` with `pids` (the load: this process, the simulator) off the measured CPU. */
export const withLoadOffMeasuredCpu = async <T>(
  isolation: CpuIsolation | undefined,
  pids: readonly number[],
  measure: () => Promise<T>,
): Promise<T> => {
  if (isolation === undefined) return measure();
  for (const pid of pids) pin(pid, isolation.rest);
  try {
    return await measure();
  } finally {
    for (const pid of pids) pin(pid, isolation.all);
  }
};

/** The command that starts `argv` on the measured CPU (or as it is, without isolation). */
export const onMeasuredCpu = (
  isolation: CpuIsolation | undefined,
  command: string,
  argv: readonly string[],
): { readonly command: string; readonly argv: readonly string[] } =>
  isolation === undefined
    ? { command, argv }
    : { command: 'taskset', argv: ['-c', isolation.measured, command, ...argv] };

export const describeIsolation = (isolation: CpuIsolation | undefined): string =>
  isolation === undefined
    ? 'not isolated (one CPU, or no taskset): the fakes and the simulator shared the CPUs with each container'
    : `each container ran alone on CPU ${isolation.measured}; the bench process (the DynamoDB and Secrets Manager fakes) and the simulator ran on CPU ${isolation.rest} meanwhile`;
