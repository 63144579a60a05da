/**
 * Observes events on a deployed bus the way an operator would: a rule with `pattern` that
 * targets a capture queue of its own. The deploy tests find one event in it; `npm start --
 * --deployed` collects the read actions' result events.
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteRuleCommand,
  type EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { EventBridgeEvent } from '../../testkit';
import { eventually } from './eventually';

export interface EventCapture {
  /** The first captured event `matches` accepts (waiting for it), removed from the queue. */
  find(what: string, matches: (event: EventBridgeEvent) => boolean): Promise<EventBridgeEvent>;
  /** Every event captured so far (one receive round of the capture queue), oldest first. */
  collect(): Promise<readonly EventBridgeEvent[]>;
  /** Removes the rule and the capture queue. */
  remove(): Promise<void>;
}

export interface CaptureClients {
  readonly sqs: SQSClient;
  readonly events: EventBridgeClient;
}

export const captureBusEvents = async (
  { sqs, events }: CaptureClients,
  busName: string,
  pattern: Record<string, unknown>,
): Promise<EventCapture> => {
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
  /** Moves what the queue holds now into `seen`; true when it held anything. */
  const receive = async (waitSeconds: number): Promise<boolean> => {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: waitSeconds,
      }),
    );
    for (const message of Messages) {
      seen.push(JSON.parse(message.Body ?? '{}') as EventBridgeEvent);
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
      );
    }
    return Messages.length > 0;
  };
  return {
    find: (what, matches) =>
      eventually(what, async () => {
        const earlier = seen.find(matches);
        if (earlier !== undefined) return earlier;
        await receive(1);
        return seen.find(matches);
      }),
    collect: async () => {
      while (await receive(0)) {
        // Until a receive comes back empty.
      }
      return [...seen];
    },
    remove: async () => {
      await events.send(
        new RemoveTargetsCommand({ Rule: name, EventBusName: busName, Ids: ['capture'] }),
      );
      await events.send(new DeleteRuleCommand({ Name: name, EventBusName: busName }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    },
  };
};
