import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { ActionName } from '../../lambdas/actions';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../lambdas/core/observability/observability';

/** Where the handlers' structured log lines go during a local run (not stdout). */
export interface LogSink {
  write(line: string): void;
  close(): void;
}

/** Appends lines to a file, truncated when opened; writes are synchronous so nothing is lost on exit. */
export const fileLogSink = (file: string): LogSink => {
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, 'w');
  let open = true;
  return {
    write: (line) => {
      if (open) writeSync(fd, line.endsWith('\n') ? line : `${line}\n`);
    },
    close: () => {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
};

/** Drops everything (tests that do not look at logs). */
export const discardLogSink: LogSink = { write: () => undefined, close: () => undefined };

const replacer = (_key: string, value: unknown): unknown => {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
};

/**
 * The handlers' Powertools Logger, unchanged except where lines go: to the run's log file
 * instead of stdout, so the run's own report stays readable.
 */
export class RunLogger extends Logger {
  readonly #sink: LogSink;

  constructor(options: {
    readonly action: ActionName;
    readonly sink: LogSink;
  }) {
    super({
      serviceName: SERVICE_NAME,
      persistentKeys: { action: options.action },
      logLevel: 'DEBUG',
    });
    this.#sink = options.sink;
  }

  protected override printLog(_logLevel: number, log: LogItem): void {
    // The base constructor may print (buffered warnings) before this class's fields exist.
    if (!(#sink in this)) return;
    this.#sink.write(JSON.stringify(log.getAttributes(), replacer));
  }
}

/**
 * The handlers' Metrics with EMF output switched off (`POWERTOOLS_METRICS_DISABLED`, read by
 * the constructor): the local run has no CloudWatch, and EMF lines would flood stdout. Its own
 * warnings go to the run's log file.
 */
export const createRunMetrics = (action: ActionName, sink: LogSink): Metrics => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const write =
    (level: string) =>
    (...content: unknown[]): void =>
      sink.write(
        JSON.stringify({
          level,
          source: 'metrics',
          action,
          message: content.map(String).join(' '),
        }),
      );
  const metrics = new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: SERVICE_NAME,
    logger: {
      debug: write('DEBUG'),
      info: write('INFO'),
      warn: write('WARN'),
      error: write('ERROR'),
    },
  });
  metrics.setDefaultDimensions({ action });
  return metrics;
};
