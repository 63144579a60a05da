/**
 * End-to-end wiring without a deployment: every rule of the synthesized example stack, with
 * its event pattern and target exactly as in the template, is created on a moto bus; sample
 * events then land only on the queue of their own action, and stray events land nowhere.
 */
import {
  CreateEventBusCommand,
  PutEventsCommand,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import type { Message } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ACTION_NAMES,
  type ActionName,
  RESULT_EVENT_SOURCE,
  resultDetailType,
} from '../../lambdas/actions';
import { allowedSourcesFor, loadConfig } from '../../lib/config';
import { pascalCase } from '../../lib/stack-outputs';
import { logicalId, resourcesOfType, synth, withoutReconciliation } from '../infra/synth';
import {
  countMessages,
  createQueue,
  motoClients,
  receiveAllMessages,
  type TestQueue,
  uniqueName,
} from '../support/aws-clients';

const { events, sqs } = motoClients();
// The action rules only: the reconcile run's rule (S3 on the default bus) has its own tests.
const config = withoutReconciliation(loadConfig('example'));

interface TemplateRule {
  readonly EventPattern: Record<string, unknown>;
  readonly Targets: ReadonlyArray<{ readonly Arn: { readonly 'Fn::GetAtt': [string, string] } }>;
}

/** moto queue standing in for each template queue, by the queue's logical id. */
const queuesByLogicalId = new Map<string, TestQueue>();
/** Logical id of the queue each action's pipeline consumes. */
const actionQueueIds = new Map<ActionName, string>();
let busName: string;

const putEvent = async (
  source: string,
  detailType: string,
  correlationId: string,
): Promise<void> => {
  const { FailedEntryCount } = await events.send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: busName,
          Source: source,
          DetailType: detailType,
          Detail: JSON.stringify({ correlationId }),
        },
      ],
    }),
  );
  if (FailedEntryCount) throw new Error(`PutEvents failed for ${detailType}`);
};

const correlationIdsOf = (messages: readonly Message[]): string[] =>
  messages.map((message) => {
    const event = JSON.parse(message.Body ?? '{}') as { detail?: { correlationId?: string } };
    return event.detail?.correlationId ?? '(none)';
  });

const totalMessages = async (): Promise<number> => {
  let total = 0;
  for (const queue of queuesByLogicalId.values()) total += await countMessages(sqs, queue.queueUrl);
  return total;
};

beforeAll(async () => {
  // Prepare: the rules exactly as synthesized, on a fresh moto bus.
  const { stack, template } = synth(config);
  for (const action of ACTION_NAMES) {
    const pipeline = stack.pipelines.get(action);
    if (!pipeline) throw new Error(`${action} is enabled in the example config`);
    actionQueueIds.set(action, logicalId(pipeline.queue));
  }
  busName = uniqueName('routing-bus');
  await events.send(new CreateEventBusCommand({ Name: busName }));
  const rules = Object.entries(resourcesOfType(template, 'AWS::Events::Rule'));
  expect(rules).toHaveLength(ACTION_NAMES.length);
  for (const [ruleId, rule] of rules) {
    const { EventPattern, Targets } = rule.Properties as unknown as TemplateRule;
    const ruleName = uniqueName(ruleId.slice(0, 40));
    await events.send(
      new PutRuleCommand({
        Name: ruleName,
        EventBusName: busName,
        EventPattern: JSON.stringify(EventPattern),
        State: 'ENABLED',
      }),
    );
    const targetQueueIds = Targets.map((target) => target.Arn['Fn::GetAtt'][0]);
    for (const queueId of targetQueueIds) {
      if (!queuesByLogicalId.has(queueId)) {
        queuesByLogicalId.set(
          queueId,
          await createQueue(sqs, { name: uniqueName(queueId.slice(0, 40)) }),
        );
      }
    }
    await events.send(
      new PutTargetsCommand({
        Rule: ruleName,
        EventBusName: busName,
        Targets: targetQueueIds.map((queueId, index) => ({
          Id: `target${index}`,
          Arn: queuesByLogicalId.get(queueId)?.queueArn,
        })),
      }),
    );
  }
});

describe('event routing of the example stack', () => {
  it('delivers each action event only to its own action queue', async () => {
    // Act
    for (const action of ACTION_NAMES) {
      const [source] = allowedSourcesFor(config, action);
      if (source === undefined) throw new Error(`${action} has no allowed source`);
      await putEvent(source, action, `routed-${action}`);
    }

    // Assess
    for (const action of ACTION_NAMES) {
      const queue = queuesByLogicalId.get(actionQueueIds.get(action) ?? '');
      if (!queue) throw new Error(`no rule targets the ${pascalCase(action)} queue`);
      const messages = await receiveAllMessages(sqs, queue.queueUrl, {
        atLeast: 1,
        afterwards: 'delete',
      });
      expect(correlationIdsOf(messages)).toEqual([`routed-${action}`]);
    }
    expect(await totalMessages()).toBe(0);
  });

  it('accepts every allowed source of an action', async () => {
    // Prepare
    const sources = allowedSourcesFor(config, 'add-or-update-campaign-record');
    const queue = queuesByLogicalId.get(actionQueueIds.get('add-or-update-campaign-record') ?? '');
    if (!queue) throw new Error('no queue for add-or-update-campaign-record');

    // Act
    for (const source of sources)
      await putEvent(source, 'add-or-update-campaign-record', `from-${source}`);

    // Assess
    const messages = await receiveAllMessages(sqs, queue.queueUrl, {
      atLeast: sources.length,
      afterwards: 'delete',
    });
    expect(correlationIdsOf(messages).sort()).toEqual(sources.map((s) => `from-${s}`).sort());
    expect(await totalMessages()).toBe(0);
  });

  it('drops events from sources that are not allowed, unknown detail-types and result events', async () => {
    // Prepare: add-user is HR-only in the example config.
    expect(allowedSourcesFor(config, 'add-user')).not.toContain('com.examplecorp.crm');

    // Act
    await putEvent('com.examplecorp.crm', 'add-user', 'wrong-source');
    await putEvent('com.unknown.producer', 'delete-campaign-record', 'unknown-source');
    await putEvent('com.examplecorp.crm', 'archive-campaign-record', 'unknown-detail-type');
    await putEvent(
      RESULT_EVENT_SOURCE,
      resultDetailType('search-campaign-records'),
      'result-event',
    );
    await putEvent('com.examplecorp.crm', 'ADD-USER', 'detail-type-case');
    // A routed event put last: once it has arrived, the strays before it had their chance.
    await putEvent('com.examplecorp.hr', 'delete-user', 'control');

    // Assess
    const control = queuesByLogicalId.get(actionQueueIds.get('delete-user') ?? '');
    if (!control) throw new Error('no queue for delete-user');
    const delivered = await receiveAllMessages(sqs, control.queueUrl, {
      atLeast: 1,
      afterwards: 'delete',
    });
    expect(correlationIdsOf(delivered)).toEqual(['control']);
    expect(await totalMessages()).toBe(0);
  });
});
