/**
 * `runOps` (the operator CLI as a function) in-process, with its output captured.
 */
import type { OpsClients, OpsWriter } from '../../ops/io';
import { runOps } from '../../ops/main';

export class CapturedWriter implements OpsWriter {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

export interface OpsRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function* streamOf(text: string): AsyncIterable<Buffer> {
  yield Buffer.from(text);
}

export interface OpsRunOptions {
  readonly stdin?: string;
  readonly clients?: OpsClients;
}

/** `runOps` in-process with captured output. */
export const runOpsCaptured = async (
  argv: readonly string[],
  options: OpsRunOptions = {},
): Promise<OpsRun> => {
  const stdout = new CapturedWriter();
  const stderr = new CapturedWriter();
  const code = await runOps(argv, {
    stdout,
    stderr,
    stdin: options.stdin === undefined ? undefined : streamOf(options.stdin),
    clients: options.clients,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
};
