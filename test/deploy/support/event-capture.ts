/**
 * Observes events on a deployed bus the way an operator would: a rule with `pattern` that
 * targets a capture queue the test owns. `find` receives until an event matches.
 */
import { randomUUID } from 'node:crypto';
import { PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import type { EventBridgeEvent } from '../../../testkit';
import type { DeployedContext } from './deployed-context';
import { eventually } from './eventually';

export interface EventCapture {
  /** The first captured event `matches` accepts (waiting for it), removed from the queue. */
  find(what: string, matches: (event: EventBridgeEvent) => boolean): Promise<EventBridgeEvent>;
}

export const captureEvents = async (
  ctx: DeployedContext,
  busName: string,
  pattern: Record<string, unknown>,
): Promise<EventCapture> => {
  const { sqs, events } = ctx.clients;
  const name = `capture-${randomUUID().slice(0, 8)}`;
  const { QueueUrl: queueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  if (queueUrl === undefined) throw new Error('CreateQueue returned no URL');
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  await events.send(
    new PutRuleCommand({
      Name: name,
      EventBusName: busName,
      EventPattern: JSON.stringify(pattern),
    }),
  );
  await events.send(
    new PutTargetsCommand({
      Rule: name,
      EventBusName: busName,
      Targets: [{ Id: 'capture', Arn: Attributes?.QueueArn }],
    }),
  );
  const seen: EventBridgeEvent[] = [];
  return {
    find: (what, matches) =>
      eventually(what, async () => {
        const earlier = seen.find(matches);
        if (earlier !== undefined) return earlier;
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
          }),
        );
        for (const message of Messages) {
          seen.push(JSON.parse(message.Body ?? '{}') as EventBridgeEvent);
          await sqs.send(
            new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
          );
        }
        return seen.find(matches);
      }),
  };
};
