/** Turns the measurements into the table rows, the largest-modules list and RESULTS.md. */
import { backpressureMarkdown, backpressureRows } from './backpressure-report';
import {
  type BilledDurationResult,
  billedDurationMarkdown,
  billedDurationRows,
  sideMedian,
  warmBilledMs,
  warmCpuMs,
} from './billed-duration';
import type { HandlerBundle } from './build';
import type { ColdStartSamples } from './cold-start';
import { type CostEstimate, costMarkdown, costRows } from './cost';
import type { DrainResult } from './drain';
import { type EndToEndResult, endToEndMarkdown, endToEndRows } from './end-to-end-latency';
import { type LogBytes, logBytesMarkdown, logBytesRows } from './log-bytes';
import { type OrderingResult, orderingMarkdown, orderingRows } from './ordering';
import type { OutageResult } from './outage';
import {
  kib,
  type Machine,
  markdownTable,
  median,
  ms,
  type Row,
  ratio,
  resultsTable,
  type Verdict,
} from './report';
import type { Scenario } from './scenario';
import type { SecretReadsResult } from './secret-reads';
import type { SynthResult } from './synth';

export const TARGETS = {
  // With the AWS SDK inside, less what no function uses (issue 14): 600 KiB held with the
  // whole SDK inside, 120 KiB while it was left to the runtime.
  bundleBytes: 450 * 1024,
  // Issue 25: with standard parts (the SDK's DynamoDB client, SQS inside the bundle).
  coldStartRatio: 1.4,
  synthSecondsSoft: 60,
} as const;

export interface Measurements {
  readonly machine: Machine;
  readonly scenario: Scenario;
  readonly bundles: readonly HandlerBundle[];
  /** The bundles of the cold-start options, by option name. */
  readonly optionBundles: readonly { readonly name: string; readonly bytes: number }[];
  readonly coldStart: ColdStartSamples;
  readonly billed: BilledDurationResult;
  /** The billed duration again without CPU isolation, when `billed` had it. */
  readonly billedShared?: BilledDurationResult;
  readonly logBytes: LogBytes;
  readonly cost: CostEstimate;
  readonly endToEnd: EndToEndResult;
  readonly secretReads: SecretReadsResult;
  readonly drain: DrainResult;
  readonly outage: OutageResult;
  readonly ordering: OrderingResult;
  readonly synth: SynthResult;
  readonly totalSeconds: number;
}

const verdict = (ok: boolean, soft = false): Verdict =>
  soft ? (ok ? 'PASS (soft)' : 'MISS (soft)') : ok ? 'PASS' : 'MISS';

interface Derived {
  readonly coldHandlerMs: number;
  readonly coldSdkMs: number;
  readonly callsPerHour: number;
  readonly allowedPerHour: number;
  readonly bundlingSeconds: number;
}

const derive = (m: Measurements): Derived => {
  const hours = m.secretReads.windowSeconds / 3600;
  return {
    coldHandlerMs: median(m.coldStart.handler.map((s) => s.totalMs)),
    coldSdkMs: median(m.coldStart.sdk.map((s) => s.totalMs)),
    callsPerHour: m.secretReads.calls / hours,
    allowedPerHour: 3600 / m.secretReads.maxAgeSeconds + 1,
    bundlingSeconds: m.bundles.reduce((sum, b) => sum + b.buildMs, 0) / 1000,
  };
};

export const buildRows = (m: Measurements): Row[] => {
  const d = derive(m);
  const { scenario, secretReads, synth } = m;
  const rows: Row[] = [
    ...billedDurationRows(m.billed, scenario.lambda.memoryMiB, m.billedShared),
    ...costRows(m.cost),
    ...logBytesRows(m.logBytes),
    ...endToEndRows(m.endToEnd),
  ];
  for (const bundle of m.bundles) {
    const asset = synth.assets.find((a) => a.action === bundle.action);
    rows.push({
      metric: `bundle ${bundle.action}`,
      value: kib(bundle.bytes),
      baseline: asset ? `${kib(asset.bytes)} (cdk asset)` : 'no cdk asset',
      ratio: asset ? ratio(bundle.bytes / asset.bytes) : '-',
      target: `≤ ${kib(TARGETS.bundleBytes)}`,
      verdict: verdict(bundle.bytes <= TARGETS.bundleBytes),
    });
  }
  const coldRatio = d.coldHandlerMs / d.coldSdkMs;
  const coldTotals = m.coldStart.handler.map((s) => s.totalMs);
  rows.push({
    metric: `cold start, median of ${m.coldStart.handler.length}`,
    value: `${ms(d.coldHandlerMs)} (${rangeOf(coldTotals)})`,
    baseline: `${ms(d.coldSdkMs)} (SDK import)`,
    ratio: ratio(coldRatio),
    target: `ratio ≤ ${TARGETS.coldStartRatio.toFixed(2)}`,
    verdict: verdict(coldRatio <= TARGETS.coldStartRatio),
  });
  const perRecordPerHour = secretReads.records / (secretReads.windowSeconds / 3600);
  rows.push({
    metric: `secret reads (max age ${secretReads.maxAgeSeconds} s)`,
    value: `${d.callsPerHour.toFixed(1)}/h, max ${secretReads.maxCallsPerInvocation}/invocation`,
    baseline: `${perRecordPerHour.toFixed(0)}/h (1 per record)`,
    ratio: ratio(secretReads.calls / secretReads.records),
    target: `≤ ${d.allowedPerHour.toFixed(0)}/h, ≤ 1/invocation`,
    verdict: verdict(d.callsPerHour <= d.allowedPerHour && secretReads.maxCallsPerInvocation <= 1),
  });
  rows.push(...backpressureRows(m.drain, m.outage));
  rows.push(...orderingRows(m.ordering));
  rows.push({
    metric: 'cdk synth (example)',
    value: `${synth.seconds.toFixed(1)} s`,
    baseline: `${d.bundlingSeconds.toFixed(1)} s (esbuild, 8 handlers)`,
    ratio: ratio(synth.seconds / d.bundlingSeconds),
    target: `≤ ${TARGETS.synthSecondsSoft} s (soft)`,
    verdict: verdict(synth.seconds <= TARGETS.synthSecondsSoft, true),
  });
  return rows;
};

const TOP = 10;

/** `min–max` of some ms values. */
const rangeOf = (values: readonly number[]): string =>
  `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;

/** The deployed bundle and each cold-start option: median, range, ratio to the SDK baseline. */
const coldStartOptionRows = (m: Measurements): string[][] => {
  const sdkMs = median(m.coldStart.sdk.map((s) => s.totalMs));
  const deployedMs = median(m.coldStart.handler.map((s) => s.totalMs));
  const measured = m.bundles.find((b) => b.action === m.scenario.action);
  const row = (
    name: string,
    differs: string,
    bytes: number | undefined,
    samples: readonly { totalMs: number }[],
  ): string[] => {
    const totals = samples.map((s) => s.totalMs);
    const value = median(totals);
    const delta = value - deployedMs;
    return [
      name,
      differs,
      bytes === undefined ? '-' : kib(bytes),
      value.toFixed(1),
      rangeOf(totals),
      ratio(value / sdkMs),
      name === 'deployed' ? '-' : `${delta >= 0 ? '+' : ''}${delta.toFixed(1)}`,
    ];
  };
  return [
    row(
      'deployed',
      'the bundle `cdk synth` stages (lib/bundling.ts)',
      measured?.bytes,
      m.coldStart.handler,
    ),
    ...m.coldStart.options.map(({ option, samples }) =>
      row(
        option.name,
        option.differs,
        m.optionBundles.find((b) => b.name === option.name)?.bytes,
        samples,
      ),
    ),
  ];
};

const OPTION_COLUMNS = [
  'bundle',
  'differs from the deployed function in',
  'size',
  'median ms',
  'range ms',
  'ratio to SDK import',
  'Δ vs deployed ms',
];

/** The cold-start options as a plain table (stdout). */
export const coldStartOptionsText = (m: Measurements): string => {
  const rows = coldStartOptionRows(m).map((r) => [r[0], ...r.slice(2)] as string[]);
  const header = [OPTION_COLUMNS[0], ...OPTION_COLUMNS.slice(2)] as string[];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [
    `cold-start options (median of ${m.coldStart.handler.length} each, same rounds; SDK import ${ms(median(m.coldStart.sdk.map((s) => s.totalMs)))}):`,
    line(header),
    ...rows.map(line),
  ].join('\n');
};

/** Largest packages / folders and files of the measured handler's bundle. */
export const largestModules = (bundle: HandlerBundle): string => {
  const share = (bytes: number): string => `${((100 * bytes) / bundle.bytes).toFixed(1)} %`;
  const packages = bundle.packages
    .slice(0, TOP)
    .map((p) => `  ${p.name.padEnd(40)} ${kib(p.bytes).padStart(10)}  ${share(p.bytes)}`);
  const files = bundle.files
    .slice(0, TOP)
    .map((f) => `  ${f.name.padEnd(64)} ${kib(f.bytes).padStart(10)}`);
  return [
    `largest packages in ${bundle.action} (${kib(bundle.bytes)}):`,
    ...packages,
    'largest files:',
    ...files,
  ].join('\n');
};

const list = (values: readonly number[], digits = 1): string =>
  values.map((v) => v.toFixed(digits)).join(', ');

/** Short explanations of each MISS, from the numbers themselves. */
const missNotes = (m: Measurements, rows: readonly Row[]): string[] => {
  const notes: string[] = [];
  const d = derive(m);
  const missed = (prefix: string): boolean =>
    rows.some((r) => r.metric.startsWith(prefix) && r.verdict === 'MISS');
  if (missed('bundle ')) {
    const measured = m.bundles.find((b) => b.action === m.scenario.action) ?? m.bundles[0];
    const top = measured?.packages.slice(0, 3) ?? [];
    const parts = top.map(
      (p) =>
        `${p.name} ${kib(p.bytes)} (${((100 * p.bytes) / (measured?.bytes ?? 1)).toFixed(0)} %)`,
    );
    notes.push(
      `Bundle size: the largest contributors to ${measured?.action ?? 'the bundle'} are ${parts.join(', ')}. See the README's notes for what would bring it under the target.`,
    );
  }
  if (missed('billed duration')) {
    const cpu = (side: 'ledger' | 'noLedger') => sideMedian(m.billed, side, warmCpuMs);
    const without = sideMedian(m.billed, 'noLedger', warmBilledMs);
    const waits = 2 * m.billed.latency.dynamoDbMs;
    notes.push(
      `Billed duration: besides the ${waits} ms of modelled DynamoDB waits per record (the claim and the commit; with no CPU at all they alone would make ${ratio((without + waits) / without)}), a warm batch with the ledger spent ${ms(cpu('ledger'))} of CPU against ${ms(cpu('noLedger'))} without (medians): the SDK's DynamoDB client for 20 requests, the HTTP exchanges and the ledger's own work, run one record after another on the one thread. RESULTS.md "Billed duration" has each round.`,
    );
  }
  if (missed('cold start')) {
    const c = coldBreakdown(m);
    const budget = TARGETS.coldStartRatio * d.coldSdkMs;
    notes.push(
      `Cold start: median ${ms(d.coldHandlerMs)} against ${ms(d.coldSdkMs)} for importing the Secrets Manager client alone; the target allows ${ms(budget)}. Import of the bundle ${ms(c.importMs)}; first invocation ${ms(c.invokeMs)}: ${ms(c.beforeSecretMs)} until the first GetSecretValue request is created (the SDK's first-request set-up), ${ms(c.secretExchangeMs)} until its answer is read (the breaker's read and the ledger's claim run alongside), then ${ms(c.betweenMs)} until the platform request starts, the first platform request ${ms(c.platformRequestMs)} (new connection and simulator included) and ${ms(c.afterMs)} after it (the ledger's commit, the log line, the batch response). Medians of each part; the options measured beside it are in "Cold start options".`,
    );
  }
  return notes;
};

/** Medians of the parts of a cold start (each part's own median, so they need not add up). */
interface ColdBreakdown {
  readonly importMs: number;
  readonly invokeMs: number;
  /** Invocation start to the GetSecretValue request's creation: Powertools + SDK set-up. */
  readonly beforeSecretMs: number;
  readonly secretExchangeMs: number;
  /** Invocation start to the end of the GetSecretValue response. */
  readonly secretCallMs: number;
  /** End of the secret response to the creation of the platform request. */
  readonly betweenMs: number;
  readonly platformRequestMs: number;
  /** End of the platform response to the end of the invocation. */
  readonly afterMs: number;
}

const coldBreakdown = (m: Measurements): ColdBreakdown => {
  const { handler } = m.coldStart;
  const parts = handler.flatMap((s) => (s.firstInvocation ? [s.firstInvocation] : []));
  return {
    importMs: median(handler.map((s) => s.importMs)),
    invokeMs: median(handler.map((s) => s.invokeMs)),
    beforeSecretMs: median(parts.map((p) => p.secretRead.startMs)),
    secretExchangeMs: median(parts.map((p) => p.secretRead.endMs - p.secretRead.startMs)),
    secretCallMs: median(parts.map((p) => p.secretRead.endMs)),
    betweenMs: median(parts.map((p) => p.platformRequest.startMs - p.secretRead.endMs)),
    platformRequestMs: median(
      parts.map((p) => p.platformRequest.endMs - p.platformRequest.startMs),
    ),
    afterMs: median(
      handler.flatMap((s) =>
        s.firstInvocation ? [s.invokeMs - s.firstInvocation.platformRequest.endMs] : [],
      ),
    ),
  };
};

export const resultsMarkdown = (m: Measurements, rows: readonly Row[]): string => {
  const d = derive(m);
  const { machine, scenario, coldStart, secretReads, synth } = m;
  const measured = m.bundles.find((b) => b.action === scenario.action);
  const notes = missNotes(m, rows);
  const cold = coldBreakdown(m);
  const lines = [
    '# Bench results',
    '',
    `Written by \`npm run bench\` (see [README.md](README.md) for what each number means). Every`,
    'ratio compares against a baseline measured in the same run on the same machine.',
    '',
    '## Machine',
    '',
    `- CPU: ${machine.cpu}, ${machine.cores} cores`,
    `- Memory: ${machine.memoryGiB.toFixed(1)} GiB`,
    `- OS: ${machine.os}`,
    `- Node: ${machine.node} (bench, simulator and every measured child process)`,
    `- Date: ${machine.date}`,
    `- Code: ${machine.code}`,
    `- Bench wall time: ${m.totalSeconds.toFixed(0)} s`,
    '',
    '## Summary',
    '',
    resultsTable(rows),
    '',
    ...(notes.length > 0 ? ['### Misses', '', ...notes.map((n) => `- ${n}`), ''] : []),
    '## Raw numbers',
    '',
    `Scenario: config \`${'example'}\`, action \`${scenario.action}\`, batch size ${scenario.batchSize}, batching window ${scenario.batchingWindowSeconds} s, maxConcurrency ${scenario.maxConcurrency}, ${scenario.recordConcurrency} records of a batch at once, function memory ${scenario.lambda.memoryMiB} MiB, timeout ${scenario.lambda.timeoutMs / 1000} s.`,
    '',
    ...billedDurationMarkdown(m.billed, m.billedShared),
    ...logBytesMarkdown(m.logBytes),
    ...costMarkdown(m.cost),
    ...endToEndMarkdown(m.endToEnd),
    '### Cold start options',
    '',
    `Each option is the deployed function with one choice changed, measured like it: ${coldStart.handler.length} fresh processes each, in the same rounds as the deployed bundle and the SDK baseline (median ${ms(median(coldStart.sdk.map((s) => s.totalMs)))}).`,
    '',
    markdownTable(OPTION_COLUMNS, coldStartOptionRows(m)),
    '',
    '### Cold start (ms, sorted)',
    '',
    `- handler, import + first invocation: ${list([...coldStart.handler.map((s) => s.totalMs)].sort((a, b) => a - b))}`,
    `- handler, import only (median): ${ms(median(coldStart.handler.map((s) => s.importMs)))}; first invocation (median): ${ms(median(coldStart.handler.map((s) => s.invokeMs)))}`,
    `- SDK baseline, import of @aws-sdk/client-secrets-manager: ${list([...coldStart.sdk.map((s) => s.totalMs)].sort((a, b) => a - b))}`,
    `- Node boot before the measured span (median): handler ${ms(median(coldStart.handler.map((s) => s.bootMs)))}, SDK ${ms(median(coldStart.sdk.map((s) => s.bootMs)))}`,
    '',
    "Breakdown (median of each part, from node:http diagnostics channels in the handler process; the parts' medians need not add up exactly):",
    '',
    markdownTable(
      ['part', 'ms'],
      [
        ['import of the bundle (the AWS SDK inside)', cold.importMs.toFixed(1)],
        ['first invocation', cold.invokeMs.toFixed(1)],
        [
          '… until the GetSecretValue request is created (Powertools, SDK set-up)',
          cold.beforeSecretMs.toFixed(1),
        ],
        [
          '… GetSecretValue in flight (the breaker read and the ledger claim alongside)',
          cold.secretExchangeMs.toFixed(1),
        ],
        [
          '… secret response to platform request (SDK parsing, message validation, request building)',
          cold.betweenMs.toFixed(1),
        ],
        [
          '… first platform request (connect, simulator, response)',
          cold.platformRequestMs.toFixed(1),
        ],
        [
          '… after the platform response (ledger commit, classification, log line, batch response)',
          cold.afterMs.toFixed(1),
        ],
      ],
    ),
    '',
    '### Secret reads',
    '',
    `${secretReads.invocations} invocations of ${secretReads.records / secretReads.invocations} records over ${secretReads.windowSeconds} simulated seconds; ${secretReads.calls} GetSecretValue calls, at simulated seconds ${secretReads.readsAtSecond.join(', ')}.`,
    '',
    ...backpressureMarkdown(m.drain, m.outage),
    ...orderingMarkdown(m.ordering),
    '### Bundles',
    '',
    markdownTable(
      ['handler', 'bytes', 'cdk synth asset bytes', 'identical to the asset', 'esbuild ms'],
      m.bundles.map((b) => {
        const asset = synth.assets.find((a) => a.action === b.action);
        return [
          b.action,
          String(b.bytes),
          asset ? String(asset.bytes) : '-',
          asset ? (asset.identical ? 'yes' : 'no') : '-',
          b.buildMs.toFixed(0),
        ];
      }),
    ),
    '',
    ...(measured
      ? [
          `Largest packages of ${measured.action} (bytes in the minified output):`,
          '',
          markdownTable(
            ['package / folder', 'bytes', 'share'],
            measured.packages
              .slice(0, TOP)
              .map((p) => [
                p.name,
                String(p.bytes),
                `${((100 * p.bytes) / measured.bytes).toFixed(1)} %`,
              ]),
          ),
          '',
          'Largest files:',
          '',
          markdownTable(
            ['file', 'bytes'],
            measured.files.slice(0, TOP).map((f) => [f.name, String(f.bytes)]),
          ),
          '',
        ]
      : []),
    '### Synth',
    '',
    `\`${synth.command}\`: ${synth.seconds.toFixed(1)} s (the bench's own esbuild runs for the 8 handlers took ${d.bundlingSeconds.toFixed(1)} s in total).`,
    '',
  ];
  return lines.join('\n');
};
