/**
 * What the bench hands its child processes (JSON in argv[2]) and what they report back (one
 * JSON document written to file descriptor 3; stdout is free for the handler's log lines).
 */

export interface LambdaShape {
  readonly functionName: string;
  readonly timeoutMs: number;
  readonly memoryMiB: number;
  readonly region: string;
}

/** One container: the bundled handler, invoked with one batch at a time, as Lambda does. */
export interface ContainerJob {
  /** Absolute path of the bundled handler (`index.mjs`). */
  readonly bundle: string;
  /** JSON file holding `string[][]`: the SQS bodies of each invocation's batch, in order. */
  readonly batchesFile: string;
  readonly lambda: LambdaShape;
}

/** What the handler wrote to stdout and stderr, split as CloudWatch Logs would receive it. */
export interface OutputCount {
  /** Log lines (Powertools logger), bytes including the newline. */
  readonly logBytes: number;
  readonly logLines: number;
  /** Embedded metric format documents (Powertools metrics), bytes including the newline. */
  readonly emfBytes: number;
  readonly emfLines: number;
}

export interface InvocationResult {
  /** From the call of the handler to its answer, ms: what Lambda bills, before rounding up. */
  readonly ms: number;
  /** CPU time (user + system) the process spent during the invocation, ms. */
  readonly cpuMs: number;
  readonly records: number;
  /** Records the handler reported as failed. */
  readonly failures: number;
  readonly output: OutputCount;
}

export interface ContainerResult {
  /** `import()` of the bundle, ms (Lambda's init phase, without the runtime's own start). */
  readonly importMs: number;
  readonly importOutput: OutputCount;
  readonly invocations: readonly InvocationResult[];
  /** The metrics the EMF documents define, each as namespace/name{dimension values}. */
  readonly metrics: readonly string[];
  /** Peak resident set size of the process, KiB (`process.resourceUsage().maxRSS`). */
  readonly maxRssKiB: number;
}

/** Lambda's SQS event source mapping in front of the bundled handler, on moto. */
export interface EventSourceJob {
  readonly bundle: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly batchSize: number;
  /** The mapping's `MaximumBatchingWindowInSeconds` (0: invoke as soon as a receive answers). */
  readonly batchingWindowSeconds: number;
  /** Batches in flight at once. */
  readonly pollers: number;
  /** Messages to delete before stopping. */
  readonly expected: number;
  readonly lambda: LambdaShape;
}

export interface EventSourceResult {
  readonly deleted: number;
  /** Records of each invocation, in order. */
  readonly batchSizes: readonly number[];
}

export interface ColdStartJob {
  readonly bundle: string;
  /** SQS body of the one message of the first invocation. */
  readonly body: string;
  readonly lambda: LambdaShape;
  /** Where the handler reads its secret and sends its platform request (to tell them apart). */
  readonly secretsManagerUrl: string;
  readonly platformUrl: string;
}

/** One HTTP exchange of a first invocation, ms after the invocation started. */
export interface ExchangeTiming {
  /** The request object was created (before connecting). */
  readonly startMs: number;
  /** The last byte of the response body arrived. */
  readonly endMs: number;
}

/** Where the first invocation's time goes, from node:http's diagnostics channels. */
export interface FirstInvocationTimings {
  /** The GetSecretValue call the AWS SDK sends to Secrets Manager. */
  readonly secretRead: ExchangeTiming;
  /** The platform request. */
  readonly platformRequest: ExchangeTiming;
  /** HTTP requests the invocation made in all (5 expected: secret, breaker read, claim, platform call, commit). */
  readonly requests: number;
}

export interface ColdStartResult {
  /** Process start to the first line of the worker script, ms. */
  readonly bootMs: number;
  /** The measured span, ms: import (and for the handler, its first invocation). */
  readonly totalMs: number;
  readonly importMs: number;
  /** First invocation, ms (0 for the SDK baseline). */
  readonly invokeMs: number;
  /** Failed records of the first invocation (must be 0). */
  readonly failures: number;
  /** Handler only. */
  readonly firstInvocation?: FirstInvocationTimings;
}
