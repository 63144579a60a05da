/**
 * `trace <action> <clientId|loginUserId>`: why is this record or user in the state it is in?
 * One command for what otherwise takes four consoles: what the entity ledger knows of it (its
 * events in time order, doubts, lease, tombstone), its dead letters in every DLQ of its kind
 * with their reasons, what SQS can say about messages still waiting, and a ready Logs Insights
 * query for its log lines (every line of an ordered message carries the hashed `entity`).
 */
import {
  ACTIONS,
  type ActionDefinition,
  type ActionName,
  actionDefinition,
} from '../lambdas/actions';
import { unwrapBody } from '../lambdas/core/entry/envelope';
import { DynamoDbLedgerStore } from '../lambdas/core/ledger/dynamodb-ledger-store';
import { entityKeyOf } from '../lambdas/core/ledger/entity-key';
import type { EntityKindName } from '../lambdas/core/pipeline/action';
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

type ReadActionName = Extract<ActionDefinition, { readonly kind: 'read' }>['name'];

/**
 * The entity a read looks at. A read orders nothing (it has no `ordering`), so its trace shows
 * the kind it reads: the entity a write of that kind would be ordered as.
 */
const READ_KINDS: { readonly [A in ReadActionName]: EntityKindName } = {
  'search-campaign-records': 'record-family',
  'query-user-existence': 'user',
};

/** The kind of entity a trace of `name` shows: a write's ordering entity, or a read's kind. */
export const traceKindOf = (name: ActionName): EntityKindName => {
  const action = actionDefinition(name);
  return action.kind === 'read' ? READ_KINDS[action.name] : action.ordering.entity;
};

/** The entity a trace names on the command line (a clientId in a region, a loginUserId) as its kind's id. */
const TRACE_IDS: { readonly [K in EntityKindName]: (id: string, region: string) => unknown } = {
  'record-family': (clientId, region) => ({ region, clientId }),
  user: (loginUserId) => ({ loginUserId }),
};

/** The write actions whose messages can change an entity of this kind (their DLQs are searched). */
const writeActionsOf = (kind: EntityKindName): ActionName[] =>
  ACTIONS.flatMap((a) => (a.kind === 'write' && a.ordering.entity === kind ? [a.name] : []));

export const runTrace: OpsCommand<TraceOptions> = async (deployment, options, io) => {
  const kind = traceKindOf(options.action);
  const entity = ENTITY_KINDS[kind];
  const region = options.region ?? deployment.config.campaignRegion;
  const key = entity.keyOf(TRACE_IDS[kind](options.id, region));
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
      const concern = { key, campaignRegion: deployment.config.campaignRegion };
      if (!concerns(action, message.Body ?? '', concern, options)) continue;
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

/**
 * Whether a dead letter's body is a message for this entity: it names the traced key, as the
 * batch harness reads it (`entityKeyOf`: before validation, since dead letters are often invalid).
 * A body that is unreadable, or names its entity otherwise (a record by previewRecordId only), is not.
 */
const concerns = (
  action: ActionName,
  body: string,
  entity: { readonly key: string; readonly campaignRegion: string },
  options: TraceOptions,
): boolean => {
  let message: unknown;
  try {
    message = unwrapBody(action, body).message;
  } catch {
    return false;
  }
  if (typeof message !== 'object' || message === null) return false;
  const fields = message as Record<string, unknown>;
  if (entityKeyOf(fields, entity.campaignRegion) !== entity.key) return false;
  return (
    options.campaign === undefined ||
    fields.campaignName === options.campaign ||
    fields.transferToCampaign === options.campaign
  );
};
