/**
 * What the bench hands its child processes (JSON in argv[2]) and what they report back (one
 * JSON document written to file descriptor 3; stdout is free for the handler's log lines).
 */

/** One platform request as the handler sends it, replayed by the bare fetch and node:http loops. */
export interface RecordedRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Message bodies of one throughput run: an untimed warm-up, then the measured messages. */
export interface MessagePhases<T> {
  readonly warmup: readonly T[];
  readonly measured: readonly T[];
}

export interface LambdaShape {
  readonly functionName: string;
  readonly timeoutMs: number;
  readonly memoryMiB: number;
  readonly region: string;
}

export interface HandlerLoadJob {
  /** Absolute path of the bundled handler (`index.mjs`). */
  readonly bundle: string;
  /** JSON file holding `MessagePhases<string>` (SQS bodies). */
  readonly messagesFile: string;
  readonly batchSize: number;
  /** Batches handled at once (the event source mapping's maximum concurrency). */
  readonly batchesInFlight: number;
  readonly lambda: LambdaShape;
}

/** A bare request loop (fetch or node:http) replaying the recorded requests. */
export interface RequestLoadJob {
  /** JSON file holding `MessagePhases<RecordedRequest>`. */
  readonly requestsFile: string;
  /** Requests in flight at once. */
  readonly concurrency: number;
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

/** A cold-start process that only imports packages (`import()` of each, in order). */
export interface ColdStartImportJob {
  readonly modules: readonly string[];
}

/** A timed phase of a load worker. */
export interface PhaseResult {
  readonly items: number;
  readonly elapsedMs: number;
  /** Records the handler reported as failed, or requests not answered 200. */
  readonly failures: number;
  /** CPU time (user + system) the worker process spent during the phase, ms. */
  readonly cpuMs: number;
}

export interface LoadResult {
  readonly warmup: PhaseResult;
  readonly measured: PhaseResult;
  /** Peak resident set size of the worker process, KiB (`process.resourceUsage().maxRSS`). */
  readonly maxRssKiB: number;
  /** Connections the worker opened over both phases, where it can count them (node:http loop). */
  readonly socketsOpened?: number;
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
  /** HTTP requests the invocation made in all (one secret read + one platform call expected). */
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
