/** The rows and the RESULTS.md section of the outage and backpressure measurements (issue 12). */
import { DEFAULT_BREAKER_SETTINGS } from '../lambdas/core/resilience/circuit-breaker';
import type { DrainResult } from './drain';
import type { OutageResult } from './outage';
import { markdownTable, type Row, ratio } from './report';

export const BACKPRESSURE_TARGETS = {
  /** The drain may take this much longer than the ceiling allows (start-up, the census's lag). */
  drainRatio: 1.25,
  /** 429s during the drain, as a share of its messages. */
  throttledShare: 0.01,
  /** One probe per cool-down per service, doubled for the calls that open the breaker. */
  outageRequestsPerServiceMinute: (2 * 60_000) / DEFAULT_BREAKER_SETTINGS.coolDownMs,
} as const;

const pass = (ok: boolean) => (ok ? 'PASS' : 'MISS');

export const backpressureRows = (drain: DrainResult, outage: OutageResult): Row[] => {
  const drainRatio = drain.drainMs / drain.idealMs;
  const throttledShare = drain.throttled / drain.messages;
  const minutes = outage.outageMs / 60_000;
  const perServiceMinute = outage.requestsDuringOutage / minutes / outage.services;
  return [
    {
      metric: `drain of ${drain.messages} messages at the rate ceiling`,
      value: `${(drain.drainMs / 1000).toFixed(1)} s`,
      baseline: `${(drain.idealMs / 1000).toFixed(1)} s (messages ÷ ceiling)`,
      ratio: ratio(drainRatio),
      target: `ratio ≤ ${BACKPRESSURE_TARGETS.drainRatio.toFixed(2)}, all applied`,
      verdict: pass(
        drainRatio <= BACKPRESSURE_TARGETS.drainRatio && drain.applied === drain.messages,
      ),
    },
    {
      metric: '429s during the drain',
      value: String(drain.throttled),
      baseline: `${drain.requests} requests`,
      ratio: ratio(throttledShare),
      target: `≤ ${(BACKPRESSURE_TARGETS.throttledShare * 100).toFixed(0)} % of messages`,
      verdict: pass(throttledShare <= BACKPRESSURE_TARGETS.throttledShare),
    },
    {
      metric: `platform requests while the breakers are open (${minutes} min outage)`,
      value: `${perServiceMinute.toFixed(2)}/min per service`,
      baseline: `${outage.messages} messages waiting`,
      ratio: '-',
      target: `≤ ${BACKPRESSURE_TARGETS.outageRequestsPerServiceMinute}/min per service, none lost`,
      verdict: pass(
        perServiceMinute <= BACKPRESSURE_TARGETS.outageRequestsPerServiceMinute &&
          outage.unexpected === 0,
      ),
    },
  ];
};

export const backpressureMarkdown = (drain: DrainResult, outage: OutageResult): string[] => [
  '### Outage and backpressure',
  '',
  `Drain: ${drain.messages} messages waiting in one queue, drained by ${drain.instances} instances of the handler (in the bench process; queue in memory on the wall clock) against the simulator process, which answers 429 with Retry-After 1 beyond ${drain.platformLimitPerSecond} requests/s. The deployment's ceiling is ${drain.ceilingPerSecond} requests/s; each instance's safe share is ${drain.floorPerSecond.toFixed(2)}/s, and the instances count each other to share the ceiling.`,
  '',
  markdownTable(
    ['messages', 'applied', 'dead-lettered', 'drain s', 'ideal s', 'requests', '429s'],
    [
      [
        String(drain.messages),
        String(drain.applied),
        String(drain.deadLettered),
        (drain.drainMs / 1000).toFixed(1),
        (drain.idealMs / 1000).toFixed(1),
        String(drain.requests),
        String(drain.throttled),
      ],
    ],
  ),
  '',
  `Outage: the example events (${outage.messages}) through the local run with every platform request answered 503 for ${outage.outageMs / 60_000} min of virtual time, then recovery. ${outage.requestsDuringOutage} platform requests reached the ${outage.services} services while it lasted, ${outage.probes} of them probes; messages ended other than the example expects: ${outage.unexpected}; differed only as an outage allows (a request answered 503 may have been applied, so its call stays in doubt): ${outage.inDoubt}.`,
  '',
];
