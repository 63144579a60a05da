/**
 * Cost per million messages, all in, from what this run measured and a dated us-east-1 price
 * table, beside the no-code alternative a user would weigh: an EventBridge rule whose target
 * is an API destination. Quantities that the run cannot see (how long Lambda keeps a container,
 * how often a message is retried) are stated in TRAFFIC and printed with the result.
 */
import {
  type BilledDurationResult,
  cpuStretch,
  messagesOf,
  sideMedian,
  warmBilledMs as warmBilledMsOf,
  warmCpuMs,
  warmStretchedMs,
} from './billed-duration';
import type { LogBytes } from './log-bytes';
import { markdownTable, type Row, ratio } from './report';
import type { Scenario } from './scenario';

/**
 * us-east-1 list prices from the AWS pricing pages, as last read in August 2025 (the Lambda
 * init billing below is from then) and not re-checked since; a run cannot re-read them (the
 * bench has no network). Free tiers are left out.
 */
export const PRICES_AS_OF = '2025-08';
export const PRICES = {
  /** Lambda, per request. */
  lambdaRequest: 0.2 / 1e6,
  /** Lambda on Arm (the functions' architecture), per GB-second, first pricing tier; the init phase is billed too (since August 2025). */
  lambdaArmGbSecond: 0.000_013_333_4,
  /** SQS standard queue, per request (each 64 KB of a payload is a request). */
  sqsRequest: 0.4 / 1e6,
  /** DynamoDB on-demand, standard table class, per write / read request unit. */
  dynamoDbWriteUnit: 0.625 / 1e6,
  dynamoDbReadUnit: 0.125 / 1e6,
  /** Secrets Manager, per API call, and per secret and month. */
  secretsManagerCall: 0.05 / 1e4,
  secretMonth: 0.4,
  /** CloudWatch Logs, standard class, per GB ingested (Lambda's logs: the first tier). */
  logsIngestedGb: 0.5,
  /** CloudWatch custom metrics (EMF included), per metric and month, first 10 000. */
  customMetricMonth: 0.3,
  /** EventBridge custom events, per PutEvents entry (each 64 KB). */
  eventBridgeEvent: 1 / 1e6,
  /** EventBridge API destinations, per invocation (retries included). */
  apiDestinationInvocation: 0.2 / 1e6,
} as const;

/** What the run cannot measure, modelled. */
export const TRAFFIC = {
  /** A steady stream of one million messages a day (11.6 per second). */
  messagesPerDay: 1_000_000,
  /** Lambda's SQS mapping starts five batches at once: five containers stay warm. */
  containers: 5,
  /** Lambda does not say how long it keeps a container; a few hours is what is commonly seen. */
  containerHours: 2,
  /** Messages retried once (a rescheduled visibility, then processed again). */
  retryShare: 0.01,
  /** Lambda's own START, END and REPORT lines per invocation (text log format), bytes. */
  platformLogBytesPerInvocation: 280,
  /** Producers send one message per SendMessage (a batch of ten would cost a tenth). */
  sendsPerMessage: 1,
} as const;

/** TRAFFIC's steady rate, messages a second (one decimal): the end-to-end run sends at it. */
export const MESSAGES_PER_SECOND = Number((TRAFFIC.messagesPerDay / 86_400).toFixed(1));

const GIB = 1024 ** 3;
const DAYS_PER_MONTH = 30;
/** The share of a month's fixed costs that a million messages carry. */
const monthShare = 1e6 / (DAYS_PER_MONTH * TRAFFIC.messagesPerDay);

export interface CostLine {
  readonly item: string;
  readonly quantity: string;
  readonly usd: number;
}

export interface CostEstimate {
  readonly ours: readonly CostLine[];
  readonly apiDestinations: readonly CostLine[];
  readonly oursUsd: number;
  readonly apiDestinationsUsd: number;
  /** Billed ms of a warm batch, as measured and with the CPU time stretched to the memory's share. */
  readonly warmBilledMs: number;
  readonly lambdaBilledMs: number;
  readonly lambdaInitMs: number;
  readonly cpuFactor: number;
  readonly memoryMiB: number;
  /** The same traffic when the mapping invokes with `meanBatch` messages (end-to-end run). */
  readonly smallBatches?: {
    readonly meanBatch: number;
    readonly usd: number;
    /** The configured batching window the end-to-end run had, s. */
    readonly batchingWindowSeconds: number;
    /** The shortest whole-second window in which MESSAGES_PER_SECOND fills a batch. */
    readonly fillingWindowSeconds: number;
  };
}

export interface CostInputs {
  readonly scenario: Scenario;
  readonly billed: BilledDurationResult;
  readonly logBytes: LogBytes;
  /** Mean records per invocation the end-to-end run saw, if it ran. */
  readonly meanBatch?: number;
}

const count = (n: number): string =>
  Number.isInteger(n) || n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2);

export const estimateCost = (inputs: CostInputs): CostEstimate => {
  const { scenario, billed, logBytes } = inputs;
  const memoryGb = scenario.lambda.memoryMiB / 1024;
  const { memoryMiB } = scenario.lambda;
  const cpuFactor = cpuStretch(memoryMiB);
  const ledger = (measure: Parameters<typeof sideMedian>[2]) =>
    sideMedian(billed, 'ledger', measure);
  const warmBilledMs = ledger(warmBilledMsOf);
  const cpuPerInvocation = ledger(warmCpuMs);
  const lambdaBilledMs = Math.ceil(ledger((run) => warmStretchedMs(run, memoryMiB)));
  // The import is nearly all CPU; the first invocation's extra (the key read) is left out.
  const lambdaInitMs = Math.ceil(ledger((run) => run.result.importMs) * cpuFactor);
  const writeUnits = ledger((run) => run.ledgerUnits.write / messagesOf(run));
  const readUnits = ledger((run) => run.ledgerUnits.read / messagesOf(run));

  const lines = (batch: number, billedPerInvocationMs: number): CostLine[] => {
    const messages = 1e6 * (1 + TRAFFIC.retryShare);
    const invocations = messages / batch;
    const days = 1e6 / TRAFFIC.messagesPerDay;
    const coldStarts = days * TRAFFIC.containers * (24 / TRAFFIC.containerHours);
    const gbSeconds =
      (invocations * billedPerInvocationMs + coldStarts * lambdaInitMs) * (memoryGb / 1000);
    const sqsRequests = 1e6 * TRAFFIC.sendsPerMessage + 2 * invocations + 1e6 * TRAFFIC.retryShare;
    const secretCalls =
      days * TRAFFIC.containers * (86_400 / scenario.config.apiKey.maxAgeSeconds) + coldStarts;
    const logBytesTotal =
      messages * logBytes.perMessage + invocations * TRAFFIC.platformLogBytesPerInvocation;
    return [
      {
        item: 'Lambda requests',
        quantity: `${count(invocations)} invocations (batches of ${count(batch)})`,
        usd: invocations * PRICES.lambdaRequest,
      },
      {
        item: 'Lambda duration',
        quantity: `${count(gbSeconds)} GB-s: ${billedPerInvocationMs} ms per invocation, ${count(coldStarts)} inits of ${lambdaInitMs} ms, ${scenario.lambda.memoryMiB} MiB`,
        usd: gbSeconds * PRICES.lambdaArmGbSecond,
      },
      {
        item: 'SQS requests',
        quantity: `${count(sqsRequests)}: sends, a receive and a delete per invocation, a visibility change per retry`,
        usd: sqsRequests * PRICES.sqsRequest,
      },
      {
        item: 'DynamoDB write units',
        quantity: `${count(messages * writeUnits + invocations)}: ${writeUnits.toFixed(2)} per message (ledger, measured), 1 per invocation (census check-in, modelled)`,
        usd: (messages * writeUnits + invocations) * PRICES.dynamoDbWriteUnit,
      },
      {
        item: 'DynamoDB read units',
        quantity: `${count(messages * readUnits + invocations / 2)}: ${readUnits.toFixed(2)} per message (ledger, measured), ½ per invocation (breaker state, modelled)`,
        usd: (messages * readUnits + invocations / 2) * PRICES.dynamoDbReadUnit,
      },
      {
        item: 'Secrets Manager calls',
        quantity: `${count(secretCalls)}: one per container per ${scenario.config.apiKey.maxAgeSeconds} s, one per cold start`,
        usd: secretCalls * PRICES.secretsManagerCall,
      },
      {
        item: 'CloudWatch Logs ingestion',
        quantity: `${(logBytesTotal / GIB).toFixed(3)} GB: ${logBytes.perMessage.toFixed(0)} B per message (measured, EMF included), ${TRAFFIC.platformLogBytesPerInvocation} B of Lambda's lines per invocation`,
        usd: (logBytesTotal / GIB) * PRICES.logsIngestedGb,
      },
      {
        item: 'EMF custom metrics',
        quantity: `${logBytes.metrics.length} metrics, a month's share at ${count(DAYS_PER_MONTH * TRAFFIC.messagesPerDay)} messages a month`,
        usd: logBytes.metrics.length * PRICES.customMetricMonth * monthShare,
      },
      {
        item: 'Secrets Manager secret',
        quantity: "the API key's secret, a month's share",
        usd: PRICES.secretMonth * monthShare,
      },
    ];
  };

  const total = (costs: readonly CostLine[]) => costs.reduce((sum, line) => sum + line.usd, 0);
  const ours = lines(scenario.batchSize, lambdaBilledMs);
  const apiDestinations: CostLine[] = [
    {
      item: 'EventBridge events',
      quantity: '1,000,000 PutEvents entries (one per message, ≤ 64 KB)',
      usd: 1e6 * PRICES.eventBridgeEvent,
    },
    {
      item: 'API destination invocations',
      quantity: `${count(1e6 * (1 + TRAFFIC.retryShare))}, retries included`,
      usd: 1e6 * (1 + TRAFFIC.retryShare) * PRICES.apiDestinationInvocation,
    },
    {
      item: 'Secrets Manager secret',
      quantity: "the connection's secret, a month's share",
      usd: PRICES.secretMonth * monthShare,
    },
  ];
  const meanBatch = inputs.meanBatch;
  // A smaller batch costs its fixed waits, and the CPU of its own records only.
  const smallBilledMs = (batch: number) =>
    Math.ceil(
      lambdaBilledMs -
        (cpuPerInvocation * cpuFactor * (scenario.batchSize - batch)) / scenario.batchSize,
    );
  return {
    ours,
    apiDestinations,
    oursUsd: total(ours),
    apiDestinationsUsd: total(apiDestinations),
    warmBilledMs,
    lambdaBilledMs,
    lambdaInitMs,
    cpuFactor,
    memoryMiB: scenario.lambda.memoryMiB,
    ...(meanBatch === undefined || meanBatch >= scenario.batchSize
      ? {}
      : {
          smallBatches: {
            meanBatch,
            usd: total(lines(meanBatch, smallBilledMs(meanBatch))),
            batchingWindowSeconds: scenario.batchingWindowSeconds,
            fillingWindowSeconds: Math.ceil(scenario.batchSize / MESSAGES_PER_SECOND),
          },
        }),
  };
};

const usd = (value: number): string => `$${value.toFixed(value < 0.01 ? 4 : 2)}`;

export const costRows = (estimate: CostEstimate): Row[] => [
  {
    metric: 'cost per million messages, all in (us-east-1)',
    value: usd(estimate.oursUsd),
    baseline: `${usd(estimate.apiDestinationsUsd)} (EventBridge API destinations)`,
    ratio: ratio(estimate.oursUsd / estimate.apiDestinationsUsd),
    target: '-',
    verdict: 'info',
  },
];

export const costMarkdown = (estimate: CostEstimate): string[] => [
  '### Cost per million messages',
  '',
  `us-east-1 list prices as of ${PRICES_AS_OF}, not re-checked since (\`PRICES\` in bench/cost.ts; free tiers left out), the quantities from this run where it can see them and modelled where it cannot (\`TRAFFIC\`): ${TRAFFIC.messagesPerDay.toLocaleString('en-US')} messages a day in full batches, ${TRAFFIC.containers} warm containers each replaced every ${TRAFFIC.containerHours} h, ${100 * TRAFFIC.retryShare} % of messages retried once, one SendMessage per message. Lambda duration uses the warm batch's billed time with its CPU time stretched to the CPU share Lambda gives ${estimate.memoryMiB} MiB (×${estimate.cpuFactor.toFixed(1)}: ${estimate.warmBilledMs.toFixed(0)} ms measured here → ${estimate.lambdaBilledMs} ms), the init likewise (${estimate.lambdaInitMs} ms); this machine's core stands in for a Graviton vCPU.`,
  '',
  markdownTable(
    ['this integration', 'quantity per million messages', 'USD'],
    estimate.ours.map((line) => [line.item, line.quantity, usd(line.usd)]),
  ),
  '',
  `Total ${usd(estimate.oursUsd)}.`,
  '',
  markdownTable(
    ['EventBridge API destinations, same traffic', 'quantity per million messages', 'USD'],
    estimate.apiDestinations.map((line) => [line.item, line.quantity, usd(line.usd)]),
  ),
  '',
  `Total ${usd(estimate.apiDestinationsUsd)}. It has no ledger (no order per entity, no stale or duplicate skip), reads HTTP 2xx as success (a 200 with \`FAILED\` is lost), sends a key fixed in its connection, and keeps no log of its own.`,
  '',
  ...(estimate.smallBatches === undefined
    ? []
    : [
        `With the example's batching window (${estimate.smallBatches.batchingWindowSeconds} s) a steady ${MESSAGES_PER_SECOND} messages a second reached the function ${estimate.smallBatches.meanBatch.toFixed(2)} at a time in the end-to-end run; at that fill this integration costs ${usd(estimate.smallBatches.usd)} per million (more invocations, receives and deletes). A batching window of ${estimate.smallBatches.fillingWindowSeconds} s would fill the batches at this rate.`,
        '',
      ]),
  'Left out, the same for both or not per message: data transfer to the platform, alarms and the dashboard (per month), DynamoDB storage and backups (per entity, ~0.6 KB each), idle polling of the queues (Lambda long-polls an empty queue, ~0.3 $ per queue and month).',
  '',
];
