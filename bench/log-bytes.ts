/**
 * Log bytes per successful message: what the deployed function writes to stdout and stderr at
 * its default log level (the example config's), counted in the billed-duration containers
 * (`workers/container.ts`), where every message succeeds. An operator pays CloudWatch Logs for
 * every byte: the log lines and the EMF documents that carry the metrics, so both count.
 */
import { type BilledDurationResult, type ContainerRun, warm } from './billed-duration';
import { markdownTable, median, type Row } from './report';

export const LOG_BYTES_TARGET = 600;

export interface LogBytes {
  /** Log lines and EMF documents per message over the warm invocations (median of the rounds). */
  readonly perMessage: number;
  readonly logPerMessage: number;
  readonly emfPerMessage: number;
  readonly logLinesPerMessage: number;
  readonly emfLinesPerInvocation: number;
  /** What a container's import and first (cold) invocation wrote, bytes. */
  readonly coldBytes: number;
  /** What a warm invocation wrote, bytes. */
  readonly warmBytes: number;
  /** Distinct metrics the EMF documents define (each billed as a custom metric). */
  readonly metrics: readonly string[];
}

const perRun = (run: ContainerRun) => {
  const invocations = warm(run);
  const messages = invocations.reduce((sum, i) => sum + i.records, 0);
  const sum = (pick: (o: (typeof invocations)[number]['output']) => number) =>
    invocations.reduce((total, i) => total + pick(i.output), 0);
  const log = sum((o) => o.logBytes);
  const emf = sum((o) => o.emfBytes);
  const written = (o: (typeof invocations)[number]['output']) => o.logBytes + o.emfBytes;
  const first = run.result.invocations[0];
  return {
    log: log / messages,
    emf: emf / messages,
    logLines: sum((o) => o.logLines) / messages,
    emfLines: sum((o) => o.emfLines) / invocations.length,
    cold: written(run.result.importOutput) + (first === undefined ? 0 : written(first.output)),
    warm: (log + emf) / invocations.length,
  };
};

export const logBytesOf = (billed: BilledDurationResult): LogBytes => {
  const runs = billed.rounds.map((r) => perRun(r.runs.ledger));
  const of = (pick: (run: (typeof runs)[number]) => number) => median(runs.map(pick));
  return {
    perMessage: of((r) => r.log + r.emf),
    logPerMessage: of((r) => r.log),
    emfPerMessage: of((r) => r.emf),
    logLinesPerMessage: of((r) => r.logLines),
    emfLinesPerInvocation: of((r) => r.emfLines),
    coldBytes: of((r) => r.cold),
    warmBytes: of((r) => r.warm),
    metrics: billed.rounds[0]?.runs.ledger.result.metrics ?? [],
  };
};

export const logBytesRows = (bytes: LogBytes): Row[] => [
  {
    metric: 'log bytes per successful message (default level)',
    value: `${bytes.perMessage.toFixed(0)} B`,
    baseline: `${bytes.logPerMessage.toFixed(0)} B log lines + ${bytes.emfPerMessage.toFixed(0)} B EMF`,
    ratio: '-',
    target: `≤ ${LOG_BYTES_TARGET} B`,
    verdict: bytes.perMessage <= LOG_BYTES_TARGET ? 'PASS' : 'MISS',
  },
];

export const logBytesMarkdown = (bytes: LogBytes): string[] => [
  '### Log bytes',
  '',
  `What the deployed function wrote at its default level per successful message, in the warm invocations of the billed-duration containers (median of the rounds): ${bytes.logLinesPerMessage.toFixed(2)} log lines per message (${bytes.logPerMessage.toFixed(0)} B) and ${bytes.emfLinesPerInvocation.toFixed(2)} EMF documents per invocation (${bytes.emfPerMessage.toFixed(0)} B per message). A container's import and cold invocation wrote ${bytes.coldBytes.toFixed(0)} B, a warm invocation ${bytes.warmBytes.toFixed(0)} B. Lambda's own START, END and REPORT lines come on top (see the cost).`,
  '',
  markdownTable(
    ['metric defined by the EMF documents (each a custom metric)'],
    bytes.metrics.map((m) => [m]),
  ),
  '',
];
