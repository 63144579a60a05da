/**
 * What the operator commands talk to: output writers, stdin, AWS clients. `main.ts` wires the
 * process's own; tests pass in-memory writers and, for fault injection, wrapped clients.
 */
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';

/** A text sink; `process.stdout` / `process.stderr` fit. */
export interface OpsWriter {
  write(text: string): unknown;
  /** True for a terminal: progress is drawn as a bar instead of plain lines. */
  readonly isTTY?: boolean;
  /** Terminal width, for the progress bar. */
  readonly columns?: number;
}

/** AWS clients to use instead of the ones built from the standard SDK configuration. */
export interface OpsClients {
  readonly sqs?: SQSClient;
  readonly eventBridge?: EventBridgeClient;
  readonly cloudFormation?: CloudFormationClient;
  readonly dynamoDb?: DynamoDBClient;
}

export interface OpsIo {
  /** Results (listings, sent ids, summaries). */
  readonly stdout: OpsWriter;
  /** Errors, warnings and progress. */
  readonly stderr: OpsWriter;
  /** Read by `send … -`; defaults to `process.stdin`. */
  readonly stdin?: AsyncIterable<string | Uint8Array>;
  /** Aborts a long-running command (Ctrl-C): it stops, releases held messages and reports. */
  readonly signal?: AbortSignal;
  readonly clients?: OpsClients;
}

/** Writes one line. */
export const writeLine = (writer: OpsWriter, line = ''): void => {
  writer.write(`${line}\n`);
};
