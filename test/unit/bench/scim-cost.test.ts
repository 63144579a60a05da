/** The SCIM bench rows price what the run measured with the dated price tables, as they say. */
import { describe, expect, it } from 'vitest';
import { PRICES } from '../../../bench/cost';
import { DEFAULT_LATENCY } from '../../../bench/modelled-latency';
import {
  SCIM_PRICES,
  SCIM_TRAFFIC,
  type ScimBenchResult,
  scimCost,
  scimRows,
} from '../../../bench/scim';

const measured = (createMs: number, deactivateMs: number): ScimBenchResult => ({
  latency: DEFAULT_LATENCY,
  users: 4,
  createMs: [createMs, createMs, createMs, createMs],
  deactivateMs: [deactivateMs, deactivateMs, deactivateMs, deactivateMs],
  ledgerReadsPerRequest: 2,
  ledgerWritesPerRequest: 5,
  logBytesPerRequest: 400,
  memoryMiB: 256,
});

describe('the SCIM cost per million requests', () => {
  it('adds API Gateway, Lambda requests and billed time, DynamoDB units, logs and traces', () => {
    // Act
    const { lines, usd } = scimCost(measured(200, 100));

    // Assess
    const perMillion = 1e6;
    const expected =
      SCIM_PRICES.restApiRequest * perMillion +
      PRICES.lambdaRequest * perMillion +
      0.15 * 0.25 * PRICES.lambdaArmGbSecond * perMillion +
      (5 * PRICES.dynamoDbWriteUnit + 2 * PRICES.dynamoDbReadUnit) * perMillion +
      (((400 + SCIM_TRAFFIC.platformLogBytesPerInvocation + SCIM_TRAFFIC.accessLogBytes) *
        perMillion) /
        1024 ** 3) *
        PRICES.logsIngestedGb +
      SCIM_TRAFFIC.tracedShare * SCIM_PRICES.xrayTrace * perMillion;
    expect(usd).toBeCloseTo(expected, 6);
    expect(lines.map((line) => line.item)).toContain('Lambda duration (150 ms at 256 MiB)');
  });

  it('puts the queue path beside it when the full bench measured it', () => {
    // Act
    const [latency, cost] = scimRows(measured(200, 100), 2.2);

    // Assess
    expect(latency?.value).toBe(
      'create p50 200.0 ms, p99 200.0 ms; deactivate p50 100.0 ms, p99 100.0 ms',
    );
    expect(cost?.baseline).toBe('$2.20 (the queue path, per million messages)');
    expect(cost?.ratio).toBe((scimCost(measured(200, 100)).usd / 2.2).toFixed(3));
  });
});
