/**
 * What the emulators' launchers (moto-server.ts, ministack-server.ts) share about the process
 * they start: a free loopback port for it, and watching it while it starts.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

/** Asks the OS for a free port. Another process could take it before the emulator binds it. */
export const freeLoopbackPort = async (host: string): Promise<number> => {
  const server = createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('No TCP port assigned');
  return address.port;
};

/** A started emulator's process as its launcher watches it. */
export interface WatchedProcess {
  /** The last lines it wrote to stdout and stderr, for error messages. */
  recentOutput(): string;
  /** Whether it has exited, or could not be spawned at all. */
  ended(): boolean;
  /**
   * The error for a start that failed: it had `exited` (as seen before stopping it) or did not
   * answer within `startTimeoutMs`; with the spawn error and the last lines it wrote.
   */
  startFailure(name: string, endpoint: string, exited: boolean, startTimeoutMs: number): Error;
}

/**
 * Drains the child's pipes (an emulator logs every request: undrained, it blocks), keeping the
 * last `linesKept` lines, and notes a spawn error.
 */
export const watchProcess = (child: ChildProcess, linesKept: number): WatchedProcess => {
  const recent: string[] = [];
  const keep = (chunk: Buffer): void => {
    recent.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    recent.splice(0, Math.max(0, recent.length - linesKept));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let spawnError: Error | undefined;
  child.on('error', (error) => {
    spawnError = error;
  });
  const ended = () =>
    child.exitCode !== null || child.signalCode !== null || spawnError !== undefined;
  return {
    recentOutput: () => recent.join('\n'),
    ended,
    startFailure: (name, endpoint, exited, startTimeoutMs) =>
      new Error(
        `${name} on ${endpoint} ${exited ? 'exited' : `did not answer within ${startTimeoutMs} ms`}` +
          `${spawnError ? ` (${spawnError.message})` : ''}:\n${recent.join('\n')}`,
      ),
  };
};
