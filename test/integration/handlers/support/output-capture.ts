/**
 * Captures everything written to process.stdout and process.stderr: Powertools Logger and
 * Metrics write through their own `Console` bound to those streams (not the global console),
 * so this sees every log line and every EMF blob the handlers print. Captured output is kept
 * off the terminal.
 */
import { vi } from 'vitest';

export interface OutputCapture {
  /** Everything written since the start or the last `clear()`, in order. */
  text(): string;
  /** Each non-empty line parsed as JSON (lines that are not JSON objects are skipped). */
  jsonLines(): Record<string, unknown>[];
  clear(): void;
  restore(): void;
}

type Write = typeof process.stdout.write;

export const captureOutput = (): OutputCapture => {
  const chunks: string[] = [];
  const intercept = (stream: NodeJS.WriteStream) =>
    vi.spyOn(stream, 'write').mockImplementation(((
      chunk: string | Uint8Array,
      ...rest: unknown[]
    ): boolean => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      // Console passes a completion callback; call it as a real stream would.
      const callback = rest.find((arg): arg is () => void => typeof arg === 'function');
      callback?.();
      return true;
    }) as Write);
  const spies = [intercept(process.stdout), intercept(process.stderr)];

  const text = (): string => chunks.join('');
  return {
    text,
    jsonLines: () =>
      text()
        .split('\n')
        .filter((line) => line.trim().startsWith('{'))
        .flatMap((line) => {
          try {
            const value: unknown = JSON.parse(line);
            return typeof value === 'object' && value !== null && !Array.isArray(value)
              ? [value as Record<string, unknown>]
              : [];
          } catch {
            return [];
          }
        }),
    clear: () => {
      chunks.length = 0;
    },
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
};
