/**
 * `trace <action> <clientId|loginUserId>`: why is this record or user in the state it is in?
 * One command for what otherwise takes four consoles: what the entity ledger knows of it (its
 * events in time order, doubts, lease, tombstone), its dead letters in every DLQ of its kind
 * with their reasons, what SQS can say about messages still waiting, and a ready Logs Insights
 * query for its log lines (every line of an ordered message carries the hashed `entity`).
 */
import { ACTIONS, type ActionName, isReadAction } from '../lambdas/actions';
import { unwrapBody } from '../lambdas/core/entry/envelope';
import { DynamoDbLedgerStore } from '../lambdas/core/ledger/dynamodb-ledger-store';
import { familyKey, userKey } from '../lambdas/core/ledger/entity-key';
import { ENTITY_KINDS } from '../lambdas/entities';
import { profileKey } from '../lambdas/scim/scim-profiles';
import { actionOutputKeys, LEDGER_TABLE_OUTPUT_KEY } from '../lib/stack-outputs';
import {
  approximateVisibleCount,
  formatDeadLetter,
  peekMessages,
  viewDeadLetter,
} from './dead-letters';
import type { OpsCommand } from './deployment';
import { writeLine } from './io';
import { describeLedgerItem } from './ledger-view';
import { describeScimItem } from './scim-view';
import { requireOutput } from './stack-outputs';

export interface TraceOptions {
  readonly action: ActionName;
  /** The record's clientId or the user's loginUserId. */
  readonly id: string;
  /** Only dead letters of this campaign (record actions); the ledger shows every campaign. */
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

export const runTrace: OpsCommand<TraceOptions> = async (deployment, options, io) => {
  const kind = kindOf(options.action);
  const region = options.region ?? deployment.config.campaignRegion;
  const key = kind === 'user' ? userKey(options.id) : familyKey(region, options.id);
  const outputs = await deployment.outputs();
  const table = requireOutput(
    outputs,
    LEDGER_TABLE_OUTPUT_KEY,
    'Is a write action enabled and the stack deployed from this version?',
  );
  const store = new DynamoDbLedgerStore({ tableName: table, client: deployment.dynamoDb() });
  const doc = await store.read(key);

  const who =
    kind === 'user' ? `user ${options.id}` : `record ${options.id} in every campaign (${region})`;
  writeLine(io.stdout, `Trace of ${who}`);
  writeLine(io.stdout, `  ledger key         ${key}`);
  writeLine(io.stdout);
  writeLine(io.stdout, 'Entity ledger');
  const entity = kind === 'user' ? ENTITY_KINDS.user : ENTITY_KINDS['record-family'];
  for (const line of describeLedgerItem(entity, doc)) writeLine(io.stdout, line);
  if (kind === 'user') {
    const scim = describeScimItem(await store.read(profileKey(options.id)));
    if (scim.length > 0) writeLine(io.stdout);
    for (const line of scim) writeLine(io.stdout, line);
  }

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
    (options.campaign === undefined ||
      fields.campaignName === options.campaign ||
      fields.transferToCampaign === options.campaign)
  );
};
