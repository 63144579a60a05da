import { execFileSync } from 'node:child_process';

/**
 * The PID of the `npm` process that started this one (through `sh` and `tsx`), when there is
 * one. Killing `npm run simulator &` by its PID kills npm only; the simulator watches it so it
 * stops too instead of holding the port.
 */
export const npmAncestor = (): number | undefined => {
  if (process.env.npm_lifecycle_event === undefined) return undefined;
  let pid = process.ppid;
  for (let depth = 0; depth < 6 && pid > 1; depth += 1) {
    let line: string;
    try {
      line = execFileSync('ps', ['-o', 'ppid=,args=', '-p', String(pid)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      return undefined; // No `ps` (or the process is gone): nothing to watch.
    }
    const match = /^(\d+)\s+(.*)$/.exec(line);
    if (match === null) return undefined;
    if (/(^|[/\s])npm(-cli\.js)?(\s|$)/.test(match[2] ?? '')) return pid;
    pid = Number(match[1]);
  }
  return undefined;
};

/** Calls `onGone` once `pid` no longer exists; checks every `intervalMs` without keeping the process alive. */
export const whenGone = (pid: number, onGone: () => void, intervalMs = 500): void => {
  const timer = setInterval(() => {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EPERM') return; // Alive, not ours to signal.
      clearInterval(timer);
      onGone();
    }
  }, intervalMs);
  timer.unref();
};
