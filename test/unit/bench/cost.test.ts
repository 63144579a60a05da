/** The cost estimate prices what the bench measured with the dated price table, as it says. */
import { describe, expect, it } from 'vitest';
import type { BilledDurationResult, ContainerRun } from '../../../bench/billed-duration';
import {
  costMarkdown,
  estimateCost,
  MESSAGES_PER_SECOND,
  PRICES,
  TRAFFIC,
} from '../../../bench/cost';
import { logBytesOf } from '../../../bench/log-bytes';
import { DEFAULT_LATENCY } from '../../../bench/modelled-latency';
import type { InvocationResult } from '../../../bench/protocol';
import { loadScenario } from '../../../bench/scenario';

const scenario = loadScenario();
const BATCH = scenario.batchSize;

const invocation = (ms: number, cpuMs: number): InvocationResult => ({
  ms,
  cpuMs,
  records: BATCH,
  failures: 0,
  output: { logBytes: 400 * BATCH, logLines: BATCH, emfBytes: 600, emfLines: 2 },
});

/** A container of 11 batches: a cold one, then warm ones of `ms` billed and `cpuMs` of CPU. */
const container = (ms: number, cpuMs: number, writeUnitsPerMessage: number): ContainerRun => ({
  result: {
    importMs: 40,
    importOutput: { logBytes: 0, logLines: 0, emfBytes: 0, emfLines: 0 },
    invocations: [invocation(200, 50), ...Array.from({ length: 10 }, () => invocation(ms, cpuMs))],
    metrics: ['ContactCenterSync/Succeeded{action=add-or-update-campaign-record}'],
    maxRssKiB: 90_000,
  },
  ledgerRequests: { UpdateItem: 11 * BATCH, PutItem: 11 * BATCH },
  ledgerUnits: { read: 0, write: writeUnitsPerMessage * 11 * BATCH },
  ledgerItemBytes: 600,
  breakerRequests: 1,
  secretReads: 1,
});

const billed = (writeUnitsPerMessage: number): BilledDurationResult => ({
  latency: DEFAULT_LATENCY,
  batchSize: BATCH,
  invocations: 11,
  isolation: undefined,
  rounds: [
    {
      order: ['ledger', 'noLedger'],
      runs: { ledger: container(100, 10, writeUnitsPerMessage), noLedger: container(85, 2, 0) },
    },
  ],
});

const estimate = (writeUnitsPerMessage = 2, meanBatch?: number) => {
  const result = billed(writeUnitsPerMessage);
  return estimateCost({
    scenario,
    billed: result,
    logBytes: logBytesOf(result),
    ...(meanBatch === undefined ? {} : { meanBatch }),
  });
};

const line = (lines: readonly { item: string; usd: number }[], item: string): number =>
  lines.find((l) => l.item === item)?.usd ?? Number.NaN;

describe('cost per million messages', () => {
  it('prices the ledger write units the run measured, and a census check-in per invocation', () => {
    // Act
    const cost = estimate(2);

    // Assess
    const messages = 1e6 * (1 + TRAFFIC.retryShare);
    const invocations = messages / BATCH;
    expect(line(cost.ours, 'DynamoDB write units')).toBeCloseTo(
      (2 * messages + invocations) * PRICES.dynamoDbWriteUnit,
      6,
    );
  });

  it('adds each measured write unit per message to the total at the table price', () => {
    // Act
    const more = estimate(3).oursUsd - estimate(2).oursUsd;

    // Assess
    expect(more).toBeCloseTo(1e6 * (1 + TRAFFIC.retryShare) * PRICES.dynamoDbWriteUnit, 6);
  });

  it('bills Lambda for the warm batch with its CPU stretched to the memory’s vCPU share', () => {
    // Act
    const cost = estimate();

    // Assess: 100 ms with 10 ms of CPU, at 256 MiB's share of a vCPU (1 769 MB).
    expect(cost.warmBilledMs).toBe(100);
    expect(cost.lambdaBilledMs).toBe(Math.ceil(100 + 10 * (1769 / 256 - 1)));
  });

  it('puts API destinations at one event and one invocation per message', () => {
    // Act
    const cost = estimate();

    // Assess
    expect(line(cost.apiDestinations, 'EventBridge events')).toBeCloseTo(1, 6);
    expect(line(cost.apiDestinations, 'API destination invocations')).toBeCloseTo(
      0.2 * (1 + TRAFFIC.retryShare),
      6,
    );
  });

  it('costs more when the mapping invokes with fewer messages than a full batch', () => {
    // Act
    const cost = estimate(2, 1.2);

    // Assess
    expect(cost.smallBatches?.usd).toBeGreaterThan(cost.oursUsd);
  });

  it('states the small batches with the scenario’s window and batch size and the traffic’s rate', () => {
    // Prepare: a mapping other than the example's.
    const other = { ...scenario, batchSize: 25, batchingWindowSeconds: 2 };
    const result = billed(2);

    // Act
    const text = costMarkdown(
      estimateCost({ scenario: other, billed: result, logBytes: logBytesOf(result), meanBatch: 3 }),
    ).join('\n');

    // Assess: 25 messages at the traffic's rate (11.6 a second) take a little over 2 s.
    expect(text).toContain(
      `batching window (2 s) a steady ${MESSAGES_PER_SECOND} messages a second reached the function 3.00 at a time`,
    );
    expect(text).toContain('A batching window of 3 s would fill the batches');
  });
});
