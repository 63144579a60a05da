/**
 * One Lambda container: a fresh process imports the bundled handler (its environment set as the
 * stack sets it) and invokes it with one SQS batch at a time, as an event source mapping does.
 * Each invocation is timed from the call to the answer, which is what Lambda bills, and what
 * the handler writes to stdout and stderr is counted on its way out (the bench sends it to
 * /dev/null): the bytes CloudWatch Logs would ingest, log lines and EMF documents apart.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { failedIds } from '../../testkit/sqs-events';
import { benchContext, benchSqsEvent } from '../invocation';
import type { ContainerJob, InvocationResult, OutputCount } from '../protocol';
import { handlerOf, readJob, report } from './report';

const job = readJob<ContainerJob>();
const batches = JSON.parse(readFileSync(job.batchesFile, 'utf8')) as string[][];

let output: OutputCount = { logBytes: 0, logLines: 0, emfBytes: 0, emfLines: 0 };
/** Each metric CloudWatch would keep: namespace, name and dimension values. */
const metrics = new Set<string>();

interface EmfDocument {
  readonly _aws?: {
    readonly CloudWatchMetrics?: readonly {
      readonly Namespace?: string;
      readonly Dimensions?: readonly (readonly string[])[];
      readonly Metrics?: readonly { readonly Name?: string }[];
    }[];
  };
  readonly [field: string]: unknown;
}

const noteMetrics = (line: string): void => {
  const document = JSON.parse(line) as EmfDocument;
  for (const directive of document._aws?.CloudWatchMetrics ?? []) {
    for (const dimensions of directive.Dimensions ?? [[]]) {
      const values = dimensions.map((name) => `${name}=${String(document[name])}`).join(',');
      for (const metric of directive.Metrics ?? []) {
        metrics.add(`${directive.Namespace}/${metric.Name}{${values}}`);
      }
    }
  }
};

/** Powertools writes whole lines; an EMF document is the line that carries `_aws`. */
const count = (chunk: unknown): void => {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const bytes = Buffer.byteLength(line) + 1;
    if (line.includes('"_aws":')) {
      noteMetrics(line);
      output = { ...output, emfBytes: output.emfBytes + bytes, emfLines: output.emfLines + 1 };
    } else {
      output = { ...output, logBytes: output.logBytes + bytes, logLines: output.logLines + 1 };
    }
  }
};
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    count(chunk);
    return write(chunk, ...rest);
  }) as typeof stream.write;
}
const taken = (): OutputCount => {
  const written = output;
  output = { logBytes: 0, logLines: 0, emfBytes: 0, emfLines: 0 };
  return written;
};

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

// Events are built before the clock starts: SQS builds them, not the function.
const events = batches.map((bodies) => benchSqsEvent(bodies, job.lambda));
const started = performance.now();
const handler = handlerOf(await import(pathToFileURL(job.bundle).href));
const importMs = performance.now() - started;
const importOutput = taken();

const invocations: InvocationResult[] = [];
for (const event of events) {
  const context = benchContext(job.lambda);
  const cpuBefore = process.cpuUsage();
  const before = performance.now();
  const answer = await handler(event, context);
  const ms = performance.now() - before;
  invocations.push({
    ms,
    cpuMs: cpuMs(cpuBefore),
    records: event.Records.length,
    failures: failedIds(answer).length,
    output: taken(),
  });
}

report({
  importMs,
  importOutput,
  invocations,
  metrics: [...metrics].sort(),
  maxRssKiB: process.resourceUsage().maxRSS,
});
