/** Turns the measurements into the table rows, the largest-modules list and RESULTS.md. */
import type { HandlerBundle } from './build';
import { type ColdStartSamples, median } from './cold-start';
import type { PhaseResult } from './protocol';
import {
  kib,
  type Machine,
  markdownTable,
  ms,
  type Row,
  ratio,
  resultsTable,
  type Verdict,
} from './report';
import type { Scenario } from './scenario';
import type { SecretReadsResult } from './secret-reads';
import type { SynthResult } from './synth';
import { perSecond, type ThroughputResult, type ThroughputRound } from './throughput';

export const TARGETS = {
  throughputRatio: 0.9,
  bundleBytes: 120 * 1024,
  coldStartRatio: 1.25,
  synthSecondsSoft: 60,
} as const;

export interface Measurements {
  readonly machine: Machine;
  readonly scenario: Scenario;
  readonly bundles: readonly HandlerBundle[];
  readonly coldStart: ColdStartSamples;
  readonly throughput: ThroughputResult;
  readonly secretReads: SecretReadsResult;
  readonly synth: SynthResult;
  readonly totalSeconds: number;
}

const verdict = (ok: boolean, soft = false): Verdict =>
  soft ? (ok ? 'PASS (soft)' : 'MISS (soft)') : ok ? 'PASS' : 'MISS';

const mib = (kibibytes: number): number => kibibytes / 1024;

interface Derived {
  readonly handlerRate: number;
  readonly baselineRate: number;
  /** Median of the rounds' handler / baseline ratios (each round pairs two adjacent runs). */
  readonly throughputRatio: number;
  readonly handlerRssMiB: number;
  readonly baselineRssMiB: number;
  readonly coldHandlerMs: number;
  readonly coldSdkMs: number;
  readonly callsPerHour: number;
  readonly allowedPerHour: number;
  readonly bundlingSeconds: number;
}

const roundRatio = (round: ThroughputRound): number =>
  perSecond(round.handler.measured) / perSecond(round.baseline.measured);

const cpuPerItem = (phase: PhaseResult): string => (phase.cpuMs / phase.items).toFixed(3);

const optional = (value: number | undefined): string =>
  value === undefined ? '-' : value.toFixed(3);

const derive = (m: Measurements): Derived => {
  const { rounds } = m.throughput;
  const hours = m.secretReads.windowSeconds / 3600;
  return {
    handlerRate: median(rounds.map((r) => perSecond(r.handler.measured))),
    baselineRate: median(rounds.map((r) => perSecond(r.baseline.measured))),
    throughputRatio: median(rounds.map(roundRatio)),
    handlerRssMiB: mib(Math.max(...rounds.map((r) => r.handler.maxRssKiB))),
    baselineRssMiB: mib(Math.max(...rounds.map((r) => r.baseline.maxRssKiB))),
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
  const rows: Row[] = [];
  rows.push({
    metric: 'throughput (msg/s)',
    value: d.handlerRate.toFixed(0),
    baseline: `${d.baselineRate.toFixed(0)} (bare fetch)`,
    ratio: ratio(d.throughputRatio),
    target: `ratio ≥ ${TARGETS.throughputRatio.toFixed(2)}`,
    verdict: verdict(d.throughputRatio >= TARGETS.throughputRatio),
  });
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
  rows.push({
    metric: `cold start, median of ${m.coldStart.handler.length}`,
    value: ms(d.coldHandlerMs),
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
  rows.push({
    metric: 'peak RSS, throughput run',
    value: `${d.handlerRssMiB.toFixed(1)} MiB`,
    baseline: `${d.baselineRssMiB.toFixed(1)} MiB (bare fetch)`,
    ratio: ratio(d.handlerRssMiB / d.baselineRssMiB),
    target: `< ${scenario.lambda.memoryMiB} MiB`,
    verdict: verdict(d.handlerRssMiB < scenario.lambda.memoryMiB),
  });
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
  if (missed('throughput')) {
    const rounds = m.throughput.rounds;
    const handlerCpu = median(
      rounds.map((r) => r.handler.measured.cpuMs / r.handler.measured.items),
    );
    const fetchCpu = median(
      rounds.map((r) => r.baseline.measured.cpuMs / r.baseline.measured.items),
    );
    notes.push(
      `Throughput: the handler reached ${d.throughputRatio.toFixed(3)} of the bare loop's rate. Its process spent ${handlerCpu.toFixed(3)} ms of CPU per message against ${fetchCpu.toFixed(3)} ms per request for the bare loop (medians); with the simulator on the second core, the handler's one event loop is the bottleneck. See the README for where the time goes.`,
    );
  }
  if (missed('cold start')) {
    const importMs = median(m.coldStart.handler.map((s) => s.importMs));
    const invokeMs = median(m.coldStart.handler.map((s) => s.invokeMs));
    notes.push(
      `Cold start: median ${ms(importMs)} to import the bundle and ${ms(invokeMs)} for the first invocation (Secrets Manager read + platform call), against ${ms(d.coldSdkMs)} for the SDK client alone.`,
    );
  }
  return notes;
};

export const resultsMarkdown = (m: Measurements, rows: readonly Row[]): string => {
  const d = derive(m);
  const { machine, scenario, throughput, coldStart, secretReads, synth } = m;
  const measured = m.bundles.find((b) => b.action === scenario.action);
  const notes = missNotes(m, rows);
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
    `Scenario: config \`${'example'}\`, action \`${scenario.action}\`, batch size ${scenario.batchSize}, maxConcurrency ${scenario.maxConcurrency}, ${scenario.recordConcurrency} records of a batch at once, function memory ${scenario.lambda.memoryMiB} MiB, timeout ${scenario.lambda.timeoutMs / 1000} s.`,
    '',
    '### Throughput',
    '',
    `${throughput.messages} measured messages after ${throughput.warmupMessages} warm-up messages per run; handler: ${throughput.batchesInFlight} batches in flight; baseline: ${throughput.requestsInFlight} requests in flight.`,
    '',
    markdownTable(
      [
        'round',
        'handler msg/s',
        'handler s',
        'handler CPU ms/msg',
        'handler peak RSS MiB',
        'simulator CPU ms/req (handler run)',
        'bare fetch req/s',
        'bare fetch s',
        'bare fetch CPU ms/req',
        'bare fetch peak RSS MiB',
        'simulator CPU ms/req (bare run)',
        'ratio',
      ],
      throughput.rounds.map((r, i) => [
        String(i + 1),
        perSecond(r.handler.measured).toFixed(0),
        (r.handler.measured.elapsedMs / 1000).toFixed(2),
        cpuPerItem(r.handler.measured),
        mib(r.handler.maxRssKiB).toFixed(1),
        optional(r.simulatorCpuMsPerRequest.handler),
        perSecond(r.baseline.measured).toFixed(0),
        (r.baseline.measured.elapsedMs / 1000).toFixed(2),
        cpuPerItem(r.baseline.measured),
        mib(r.baseline.maxRssKiB).toFixed(1),
        optional(r.simulatorCpuMsPerRequest.baseline),
        ratio(roundRatio(r)),
      ]),
    ),
    '',
    `Medians: handler ${d.handlerRate.toFixed(0)} msg/s, bare fetch ${d.baselineRate.toFixed(0)} req/s; the ratio in the summary is the median of the rounds' ratios. CPU figures are per measured message (worker) or per request of the whole run incl. warm-up (simulator).`,
    '',
    '### Cold start (ms, sorted)',
    '',
    `- handler, import + first invocation: ${list([...coldStart.handler.map((s) => s.totalMs)].sort((a, b) => a - b))}`,
    `- handler, import only (median): ${ms(median(coldStart.handler.map((s) => s.importMs)))}; first invocation (median): ${ms(median(coldStart.handler.map((s) => s.invokeMs)))}`,
    `- SDK baseline, import of @aws-sdk/client-secrets-manager: ${list([...coldStart.sdk.map((s) => s.totalMs)].sort((a, b) => a - b))}`,
    `- Node boot before the measured span (median): handler ${ms(median(coldStart.handler.map((s) => s.bootMs)))}, SDK ${ms(median(coldStart.sdk.map((s) => s.bootMs)))}`,
    '',
    '### Secret reads',
    '',
    `${secretReads.invocations} invocations of ${secretReads.records / secretReads.invocations} records over ${secretReads.windowSeconds} simulated seconds; ${secretReads.calls} GetSecretValue calls, at simulated seconds ${secretReads.readsAtSecond.join(', ')}.`,
    '',
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
