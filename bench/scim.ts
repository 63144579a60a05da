/**
 * The SCIM endpoint's two bench rows (issue 33): how long a create and a deactivation take the
 * function at the modelled latencies, and what a million SCIM requests cost beside the queue
 * path. The function is the runtime's `createScimHandler` as `npm start -- --scim` runs it
 * (`local/scim/local-scim-handler.ts`), invoked in-process with API Gateway's proxy events; the
 * simulator answers each platform request after `platformMs`, each ledger request waits
 * `dynamoDbMs`. API Gateway's own overhead is not in the latency (it is in the cost).
 *
 * Alone: `npx tsx bench/scim.ts [--quick]` prints the two rows (the queue path's cost, the
 * cost row's baseline, comes from a full `npm run bench`).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../lambdas/actions';
import type { LedgerStore } from '../lambdas/core/ledger/ledger-store';
import { SCIM_DEFAULTS } from '../lib/config';
import { createLocalScimHandler } from '../local/scim/local-scim-handler';
import { startSimulator } from '../local/simulator';
import { apiGatewayEvent, lambdaContext } from '../testkit';
import { PRICES, PRICES_AS_OF } from './cost';
import { DEFAULT_LATENCY, type ModelledLatency } from './modelled-latency';
import { percentile, type Row, ratio, textTable } from './report';

/** API Gateway REST API and X-Ray prices (us-east-1, same date as `PRICES`). */
export const SCIM_PRICES = {
  /** REST API requests, first 333 million a month. */
  restApiRequest: 3.5 / 1e6,
  /** X-Ray traces recorded. */
  xrayTrace: 5 / 1e6,
} as const;

/** What the bench cannot see of SCIM traffic, modelled. */
export const SCIM_TRAFFIC = {
  /** X-Ray's default rule traces 1 request a second plus 5 % of the rest; IdP traffic is a few a second at most, so most are traced: counted as all. */
  tracedShare: 1,
  /** One access log line of SCIM_ACCESS_LOG_FIELDS, bytes. */
  accessLogBytes: 330,
  /** Lambda's START, END and REPORT lines per invocation, bytes (as `TRAFFIC` in cost.ts). */
  platformLogBytesPerInvocation: 280,
} as const;

export interface ScimBenchResult {
  readonly latency: ModelledLatency;
  readonly users: number;
  /** Function time per request, ms, in request order. */
  readonly createMs: readonly number[];
  readonly deactivateMs: readonly number[];
  /** Ledger store requests per SCIM request (reads, writes), both kinds together. */
  readonly ledgerReadsPerRequest: number;
  readonly ledgerWritesPerRequest: number;
  /** Bytes the function logged per request (its JSON lines). */
  readonly logBytesPerRequest: number;
  readonly memoryMiB: number;
}

const READS = new Set(['read', 'readAlias']);

/** Each ledger request waits `delayMs` first (DynamoDB in-Region), and is counted. */
const delayedLedger = (
  store: LedgerStore,
  delayMs: number,
  counts: { reads: number; writes: number },
): LedgerStore =>
  new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (READS.has(String(name))) counts.reads += 1;
        else counts.writes += 1;
        await sleep(delayMs);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });

/** Creates `users` users and deactivates each (Entra ID's soft delete), timing every request. */
export const measureScim = async (
  latency: ModelledLatency = DEFAULT_LATENCY,
  users = 200,
): Promise<ScimBenchResult> => {
  const apiKey = randomBytes(24).toString('base64url');
  const token = randomBytes(32).toString('base64url');
  const tenant = { platformCode: 'BENCH', companyCode: 'bench', environmentName: 'bench' };
  const simulator = await startSimulator({ apiKey, ...tenant, secretsRegion: 'eu-central-1' });
  simulator.setFaults({ latencyMs: latency.platformMs });
  const counts = { reads: 0, writes: 0 };
  let logBytes = 0;
  // The handlers' Powertools logger and metrics, their output counted and dropped.
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  class CountingLogger extends Logger {
    protected override printLog(_level: number, log: { getAttributes(): object }): void {
      logBytes += JSON.stringify(log.getAttributes()).length + 1;
    }
  }
  try {
    const { handler } = createLocalScimHandler({
      platform: {
        ...tenant,
        baseUrl: simulator.baseUrl,
        campaignRegion: 'eu-central-1',
        secretsRegion: 'eu-central-1',
      },
      apiKey,
      token,
      logger: new CountingLogger({ serviceName: SERVICE_NAME, logLevel: 'INFO' }),
      metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME }),
      wrapLedger: (store) => delayedLedger(store, latency.dynamoDbMs, counts),
    });
    const headers = {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/scim+json',
    };
    const timed = async (request: Parameters<typeof apiGatewayEvent>[0]) => {
      const started = performance.now();
      const result = await handler(apiGatewayEvent(request), lambdaContext());
      const elapsed = performance.now() - started;
      return { result, elapsed };
    };
    const createMs: number[] = [];
    const deactivateMs: number[] = [];
    for (let index = 0; index < users; index += 1) {
      const userName = `bench.user.${index}@examplecorp.com`;
      const created = await timed({
        method: 'POST',
        path: 'Users',
        headers,
        body: JSON.stringify({
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
          userName,
          name: { givenName: 'Bench', familyName: `User ${index}` },
          emails: [{ value: userName, primary: true, type: 'work' }],
          active: true,
        }),
      });
      if (created.result.statusCode !== 201) {
        throw new Error(`create ${userName}: ${created.result.statusCode} ${created.result.body}`);
      }
      const { id } = JSON.parse(created.result.body) as { id: string };
      const deactivated = await timed({
        method: 'PATCH',
        path: `Users/${id}`,
        headers,
        body: JSON.stringify({
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
        }),
      });
      if (deactivated.result.statusCode !== 200) {
        throw new Error(`deactivate ${userName}: ${deactivated.result.statusCode}`);
      }
      createMs.push(created.elapsed);
      deactivateMs.push(deactivated.elapsed);
    }
    const requests = 2 * users;
    return {
      latency,
      users,
      createMs,
      deactivateMs,
      ledgerReadsPerRequest: counts.reads / requests,
      ledgerWritesPerRequest: counts.writes / requests,
      logBytesPerRequest: logBytes / requests,
      memoryMiB: SCIM_DEFAULTS.memoryMiB,
    };
  } finally {
    await simulator.close();
  }
};

export interface ScimCostLine {
  readonly item: string;
  readonly usd: number;
}

/** A million SCIM requests, half creates and half deactivations, priced from the run. */
export const scimCost = (result: ScimBenchResult): { lines: ScimCostLine[]; usd: number } => {
  const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  // Lambda bills the wall time, rounded up to the ms: the function mostly waits on the platform.
  const billedMs = Math.ceil((mean(result.createMs) + mean(result.deactivateMs)) / 2);
  const logBytes =
    result.logBytesPerRequest +
    SCIM_TRAFFIC.platformLogBytesPerInvocation +
    SCIM_TRAFFIC.accessLogBytes;
  const lines: ScimCostLine[] = [
    { item: 'API Gateway REST API requests', usd: SCIM_PRICES.restApiRequest * 1e6 },
    { item: 'Lambda requests', usd: PRICES.lambdaRequest * 1e6 },
    {
      item: `Lambda duration (${billedMs} ms at ${result.memoryMiB} MiB)`,
      usd: (billedMs / 1000) * (result.memoryMiB / 1024) * PRICES.lambdaArmGbSecond * 1e6,
    },
    {
      item: `DynamoDB (${result.ledgerWritesPerRequest.toFixed(2)} writes, ${result.ledgerReadsPerRequest.toFixed(2)} reads per request)`,
      usd:
        (result.ledgerWritesPerRequest * PRICES.dynamoDbWriteUnit +
          result.ledgerReadsPerRequest * PRICES.dynamoDbReadUnit) *
        1e6,
    },
    {
      item: `CloudWatch Logs (${Math.round(logBytes)} B per request with the access log)`,
      usd: ((logBytes * 1e6) / 1024 ** 3) * PRICES.logsIngestedGb,
    },
    { item: 'X-Ray traces', usd: SCIM_TRAFFIC.tracedShare * SCIM_PRICES.xrayTrace * 1e6 },
  ];
  return { lines, usd: lines.reduce((sum, line) => sum + line.usd, 0) };
};

const msText = (value: number) => `${value.toFixed(1)} ms`;
const p = (values: readonly number[], at: number) =>
  percentile(
    [...values].sort((a, b) => a - b),
    at,
  );

/** The two rows; `queuePathUsd` is the cost row's baseline when the full bench measured it. */
export const scimRows = (result: ScimBenchResult, queuePathUsd?: number): Row[] => {
  const cost = scimCost(result);
  return [
    {
      metric: `SCIM create and deactivate (PATCH active "False"), function time, platform ${result.latency.platformMs} ms and DynamoDB ${result.latency.dynamoDbMs} ms per request`,
      value: `create p50 ${msText(p(result.createMs, 50))}, p99 ${msText(p(result.createMs, 99))}; deactivate p50 ${msText(p(result.deactivateMs, 50))}, p99 ${msText(p(result.deactivateMs, 99))}`,
      baseline: `${result.users} users, one after another`,
      ratio: '-',
      target: '-',
      verdict: 'info',
    },
    {
      metric: `cost per million SCIM requests, API Gateway REST + Lambda + DynamoDB + logs + X-Ray (us-east-1 prices of ${PRICES_AS_OF})`,
      value: `$${cost.usd.toFixed(2)}`,
      baseline:
        queuePathUsd === undefined
          ? 'the queue path: see the cost row'
          : `$${queuePathUsd.toFixed(2)} (the queue path, per million messages)`,
      ratio: queuePathUsd === undefined ? '-' : ratio(cost.usd / queuePathUsd),
      target: '-',
      verdict: 'info',
    },
  ];
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  const result = await measureScim(DEFAULT_LATENCY, values.quick ? 20 : 200);
  console.log(textTable(scimRows(result)));
  for (const line of scimCost(result).lines) console.log(`  ${line.item}: $${line.usd.toFixed(4)}`);
}
