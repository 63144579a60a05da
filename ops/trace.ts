/**
 * `trace <action> <clientId|loginUserId>`: why is this record or user in the state it is in?
 * One command for what otherwise takes four consoles: what the entity ledger knows of it (its
 * events in time order, doubts, lease, tombstone), its dead letters in every DLQ of its kind
 * with their reasons, what SQS can say about messages still waiting, and a ready Logs Insights
 * query for its log lines (every line of an ordered message carries the hashed `entity`).
 */
import { ACTIONS, type ActionName, isReadAction } from '../lambdas/actions';
import { unwrapBody } from '../lambdas/core/envelope';
import { DynamoDbLedgerStore } from '../lambdas/core/ledger/dynamodb-ledger-store';
import type { EntityDoc } from '../lambdas/core/ledger/entity';
import { versionTime } from '../lambdas/core/ledger/event-version';
import { recordLocation, userLocation } from '../lambdas/core/ledger/locations';
import { actionOutputKeys, LEDGER_TABLE_OUTPUT_KEY } from '../lib/stack-outputs';
import { counted } from './counted';
import {
  approximateVisibleCount,
  formatDeadLetter,
  peekMessages,
  viewDeadLetter,
} from './dead-letters';
import type { OpsCommand } from './deployment';
import { UsageError } from './errors';
import { writeLine } from './io';
import { requireOutput } from './stack-outputs';

export interface TraceOptions {
  readonly action: ActionName;
  /** The record's clientId or the user's loginUserId. */
  readonly id: string;
  /** The record's campaign (record actions). */
  readonly campaign?: string | undefined;
  /** The record's region. @default the config's campaign region */
  readonly region?: string | undefined;
  readonly showBody: boolean;
}

type Kind = 'record' | 'user';

const kindOf = (action: ActionName): Kind =>
  ACTIONS.find((a) => a.name === action)?.service === 'provisioning' ? 'user' : 'record';

/** The write actions whose messages can change an entity of this kind (their DLQs are searched). */
const writeActionsOf = (kind: Kind): ActionName[] =>
  ACTIONS.filter((a) => !isReadAction(a.name) && kindOf(a.name) === kind).map((a) => a.name);

const iso = (ms: number): string => new Date(ms).toISOString();

/** `<action>@<version>` → the event's time, action and outcome, oldest first. */
const settledEvents = (doc: EntityDoc): { at: number; action: string; outcome: string }[] =>
  doc.settled
    .map((key) => {
      const [action = key, version = ''] = key.split('@');
      const repeats = doc.repeats?.[key] ?? 0;
      const outcome = `${doc.outcomes?.[key] ?? '(outcome not recorded)'}${repeats > 0 ? `, then ${counted(repeats, 'duplicate')} skipped` : ''}`;
      return { at: versionTime(version), action, outcome };
    })
    .sort((a, b) => a.at - b.at);

const describeDoc = (doc: EntityDoc | undefined): string[] => {
  if (doc === undefined) {
    return [
      '  no ledger entry: no message of this integration has touched it (or its entry expired)',
    ];
  }
  const lines = [
    `  on the platform    ${doc.present === true ? 'yes' : doc.present === false ? 'no' : 'unknown'}${doc.ours === true ? ' (created by this integration)' : ''}`,
  ];
  const at = (label: string, version: string | undefined) => {
    if (version !== undefined) lines.push(`  ${label.padEnd(19)}${iso(versionTime(version))}`);
  };
  at('created at', doc.bornAt);
  at('deleted at', doc.deletedAt);
  if (doc.movedTo) {
    lines.push(
      `  moved away         ${iso(versionTime(doc.movedTo.v))} (to ${JSON.stringify(doc.movedTo.address ?? {})})`,
    );
  }
  at('moved here at', doc.arrivedAt);
  at('move in doubt', doc.moving);
  const fields = Object.entries(doc.fields);
  if (fields.length > 0) {
    lines.push(
      `  fields, last set   ${fields.map(([name, entry]) => `${name} ${iso(versionTime(entry.v))}`).join(', ')}`,
    );
  }
  lines.push(
    '  events settled, by occurredAt, oldest first (waits and busy entities are retried, not recorded here: see the logs):',
  );
  for (const event of settledEvents(doc)) {
    lines.push(`    ${iso(event.at)}  ${event.action.padEnd(30)} ${event.outcome}`);
  }
  if (doc.uncertain.length > 0) {
    lines.push(
      `  unanswered calls   ${doc.uncertain.length} (a call that may have reached the platform; its retry settles it)`,
    );
  }
  if (doc.pending !== undefined) {
    lines.push(
      '  half done          a re-create whose add is still to come (its retry finishes it)',
    );
  }
  return lines;
};

export const runTrace: OpsCommand<TraceOptions> = async (deployment, options, io) => {
  const kind = kindOf(options.action);
  if (kind === 'record' && options.campaign === undefined) {
    throw new UsageError('A record is named by its campaign and clientId: add --campaign <name>');
  }
  const region = options.region ?? deployment.config.campaignRegion;
  const key =
    kind === 'user'
      ? userLocation(options.id)
      : recordLocation(region, options.campaign ?? '', options.id);
  const outputs = await deployment.outputs();
  const table = requireOutput(
    outputs,
    LEDGER_TABLE_OUTPUT_KEY,
    'Is a write action enabled and the stack deployed from this version?',
  );
  const store = new DynamoDbLedgerStore({ tableName: table, client: deployment.dynamoDb() });
  const doc = await store.read(key);

  const who =
    kind === 'user'
      ? `user ${options.id}`
      : `record ${options.id} in ${options.campaign} (${region})`;
  writeLine(io.stdout, `Trace of ${who}`);
  writeLine(io.stdout, `  ledger key         ${key}`);
  writeLine(io.stdout);
  writeLine(io.stdout, 'Entity ledger');
  for (const line of describeDoc(doc)) writeLine(io.stdout, line);

  writeLine(io.stdout);
  writeLine(io.stdout, 'Dead letters');
  const actions = writeActionsOf(kind).filter((a) =>
    outputs.values.has(actionOutputKeys(a).deadLetterQueueUrl),
  );
  let found = 0;
  const waiting: string[] = [];
  for (const action of actions) {
    const queues = await deployment.queues(action);
    const peek = await peekMessages(deployment.sqs(), queues.deadLetterQueueUrl, {
      signal: io.signal,
    });
    for (const message of peek.messages) {
      if (!concerns(action, message.Body ?? '', kind, options)) continue;
      found += 1;
      writeLine(io.stdout, `  ${action}`);
      for (const line of formatDeadLetter(viewDeadLetter(message), found, options.showBody)) {
        writeLine(io.stdout, `  ${line}`);
      }
    }
    const visible = await approximateVisibleCount(deployment.sqs(), queues.queueUrl);
    if (visible > 0) waiting.push(`${action} ${visible}`);
  }
  if (found === 0) writeLine(io.stdout, `  none in the DLQs of ${actions.join(', ')}`);

  writeLine(io.stdout);
  writeLine(io.stdout, 'Still waiting');
  writeLine(
    io.stdout,
    waiting.length === 0
      ? '  the source queues of this kind hold no visible messages'
      : `  messages visible in the source queues (SQS cannot tell whose without receiving them): ${waiting.join(', ')}`,
  );

  writeLine(io.stdout);
  writeLine(io.stdout, 'Logs Insights (log groups of the actions above)');
  writeLine(
    io.stdout,
    `  fields @timestamp, action, code, message, correlationId, receiveCount | filter entity = "${key}" | sort @timestamp asc`,
  );
  for (const action of actions) {
    const group = outputs.values.get(actionOutputKeys(action).logGroupName);
    if (group !== undefined) writeLine(io.stdout, `  ${group}`);
  }
  return 0;
};

/** Whether a dead letter's body is a message for this entity (an unreadable body is not). */
const concerns = (action: ActionName, body: string, kind: Kind, options: TraceOptions): boolean => {
  let message: unknown;
  try {
    message = unwrapBody(action, body).message;
  } catch {
    return false;
  }
  if (typeof message !== 'object' || message === null) return false;
  const fields = message as Record<string, unknown>;
  if (kind === 'user') return fields.loginUserId === options.id;
  return (
    fields.clientId === options.id &&
    (fields.campaignName === options.campaign || fields.transferToCampaign === options.campaign)
  );
};
