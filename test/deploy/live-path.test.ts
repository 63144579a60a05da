/**
 * The live path through the deployed stack: for each action a valid message on its queue goes
 * through the event source mapping and the bundled handler (with its execution role, IAM
 * enforced) to the platform simulator; writes change the platform, reads publish their result
 * on the bus. An invalid message lands in the action's DLQ with the reason attributes. An event
 * on the bus reaches its action's queue only from an allowed source.
 */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { type Message, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ActionName, RESULT_EVENT_SOURCE, resultDetailType } from '../../lambdas/actions';
import type { StateSnapshot } from '../../local/simulator';
import type { AppliedAction } from '../../local/simulator/state';
import { eventBridgeEvent } from '../../testkit';
import { REASON_ATTRIBUTES } from '../support/dead-letter-reason';
import { ALLOWED_SOURCES, DEPLOY_REGION } from './support/deploy-config';
import { deployedContext } from './support/deployed-context';
import { captureEvents, type EventCapture } from './support/event-capture';
import { eventually } from './support/eventually';

const ctx = deployedContext();
const [CRM, HR] = ALLOWED_SOURCES;
const occurredAt = () => new Date().toISOString();
const LOGIN = 'dee.ployed@example.com';

/** Each action once, in an order where each finds what the one before made. */
const steps: ReadonlyArray<{
  action: ActionName;
  source: string;
  detail: Record<string, unknown>;
  /** A write: the platform operation it must have applied. A read: none (a result instead). */
  applies?: { action: AppliedAction; id: string };
}> = [
  {
    action: 'add-or-update-campaign-record',
    source: CRM,
    detail: {
      campaignName: 'Deployed-Spring',
      clientId: 'DEP-1',
      previewRecordData: [
        { key: 'FirstName', value: 'Dee', displayOrder: 1 },
        { key: 'LastName', value: 'Ployed', displayOrder: 2 },
        { key: 'mobilePhone', value: '+12025550199', displayOrder: 3 },
        { key: 'ItemTimeZone', value: 'America/New_York' },
      ],
    },
    applies: { action: 'addOrUpdateCampaignRecord:add', id: 'DEP-1' },
  },
  {
    action: 'search-campaign-records',
    source: CRM,
    detail: { campaignName: 'Deployed-Spring', clientId: 'DEP-1' },
  },
  {
    action: 'change-campaign-record-status',
    source: CRM,
    detail: {
      campaignName: 'Deployed-Spring',
      clientId: 'DEP-1',
      previewRecordStateEnum: 'WORKED',
      nextEarliestWorkTimeUTC: Date.now() + 86_400_000,
      timeZone: 'America/New_York',
    },
    applies: { action: 'changeCampaignRecordStatus', id: 'DEP-1' },
  },
  {
    action: 'transfer-campaign-record',
    source: CRM,
    detail: {
      campaignName: 'Deployed-Spring',
      clientId: 'DEP-1',
      transferToCampaign: 'Deployed-WinBack',
      skillQueue: 'WinBack-Team',
      preferredAgent: '',
    },
    applies: { action: 'transferCampaignRecord', id: 'DEP-1' },
  },
  {
    action: 'delete-campaign-record',
    source: CRM,
    detail: { campaignName: 'Deployed-WinBack', clientId: 'DEP-1' },
    applies: { action: 'deleteRecordFromCampaign', id: 'DEP-1' },
  },
  {
    action: 'add-user',
    source: HR,
    detail: {
      loginUserId: LOGIN,
      firstName: 'Dee',
      lastName: 'Ployed',
      userTemplateName: 'Agent-Standard',
      createInCloudConnect: true,
    },
    applies: { action: 'add-user', id: LOGIN },
  },
  { action: 'query-user-existence', source: HR, detail: { loginUserId: LOGIN } },
  {
    action: 'delete-user',
    source: HR,
    detail: { loginUserId: LOGIN },
    applies: { action: 'delete-user', id: LOGIN },
  },
];

const appliedTo = (state: StateSnapshot, action: AppliedAction, id: string) =>
  state.history.some((op) => op.action === action && (op.clientId === id || op.loginUserId === id));

const sendToQueue = async (
  action: ActionName,
  source: string,
  detail: Record<string, unknown>,
): Promise<void> => {
  const body = eventBridgeEvent(action, detail, {
    source,
    account: ctx.setup.account,
    region: DEPLOY_REGION,
  });
  await ctx.clients.sqs.send(
    new SendMessageCommand({ QueueUrl: ctx.queueUrl(action), MessageBody: JSON.stringify(body) }),
  );
};

/** A dead letter of `action` whose reason names `correlationId`. */
const deadLetter = (action: ActionName, correlationId: string): Promise<Message> =>
  eventually(`a dead letter of ${action} for ${correlationId}`, async () => {
    const { Messages = [] } = await ctx.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: ctx.deadLetterQueueUrl(action),
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
        VisibilityTimeout: 0,
        WaitTimeSeconds: 1,
      }),
    );
    return Messages.find((m) => m.MessageAttributes?.correlationId?.StringValue === correlationId);
  });

let results: EventCapture;

beforeAll(async () => {
  results = await captureEvents(ctx, ctx.eventBusName, {
    source: [RESULT_EVENT_SOURCE],
    'detail-type': steps.map(({ action }) => resultDetailType(action)),
  });
});

describe('a valid message on each action queue, through its mapping and handler', () => {
  it.each(steps)('$action reaches the platform', async ({ action, source, detail, applies }) => {
    // Prepare
    const correlationId = `deployed-${action}`;

    // Act
    await sendToQueue(action, source, { ...detail, occurredAt: occurredAt(), correlationId });

    // Assess
    if (applies !== undefined) {
      const state = await eventually(
        `${applies.action} of ${applies.id} on the platform`,
        async () => {
          const now = await ctx.platform.state();
          return appliedTo(now, applies.action, applies.id) ? now : undefined;
        },
      );
      expect(appliedTo(state, applies.action, applies.id)).toBe(true);
    } else {
      const result = await results.find(
        `${resultDetailType(action)} for ${correlationId}`,
        (event) =>
          event['detail-type'] === resultDetailType(action) &&
          JSON.stringify(event.detail).includes(correlationId),
      );
      expect(result.source).toBe(RESULT_EVENT_SOURCE);
    }
  });
});

describe('an invalid message on each action queue', () => {
  it.each(steps)(
    '$action: lands in its DLQ with the reason attributes',
    async ({ action, source }) => {
      // Prepare
      const correlationId = `deployed-invalid-${action}`;

      // Act
      await sendToQueue(action, source, { occurredAt: occurredAt(), correlationId });

      // Assess
      const letter = await deadLetter(action, correlationId);
      expect(Object.keys(letter.MessageAttributes ?? {}).sort()).toEqual(
        expect.arrayContaining([...REASON_ATTRIBUTES]),
      );
      expect(letter.MessageAttributes?.action?.StringValue).toBe(action);
      expect(letter.MessageAttributes?.errorCategory?.StringValue).toBe('permanent');
    },
  );
});

describe('events on the bus', () => {
  const putEvent = async (source: string, clientId: string): Promise<void> => {
    const { FailedEntryCount } = await ctx.clients.events.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: ctx.eventBusName,
            Source: source,
            DetailType: 'add-or-update-campaign-record',
            Detail: JSON.stringify({
              occurredAt: occurredAt(),
              correlationId: `bus-${clientId}`,
              campaignName: 'Deployed-Bus',
              clientId,
              previewRecordData: [{ key: 'FirstName', value: 'Bus', displayOrder: 1 }],
            }),
          },
        ],
      }),
    );
    expect(FailedEntryCount ?? 0).toBe(0);
  };

  it('from an allowed source reach the action queue and are applied; from another source, nothing', async () => {
    // Act: the stray event first, then the allowed one.
    await putEvent('marketing.deployed', 'BUS-STRAY');
    await putEvent(CRM, 'BUS-1');

    // Assess
    const state = await eventually('the allowed event applied on the platform', async () => {
      const now = await ctx.platform.state();
      return appliedTo(now, 'addOrUpdateCampaignRecord:add', 'BUS-1') ? now : undefined;
    });
    expect(appliedTo(state, 'addOrUpdateCampaignRecord:add', 'BUS-1')).toBe(true);
    expect(state.history.filter((op) => op.clientId === 'BUS-STRAY')).toEqual([]);
  });
});
