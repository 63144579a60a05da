import { type SpawnOptions, spawn } from 'node:child_process';

export interface ProcessRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end with no stdin and returns its exit code and output. */
export const runProcess = (
  command: string,
  args: readonly string[],
  options: Omit<SpawnOptions, 'stdio'> = {},
): Promise<ProcessRun> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
