/**
 * The events Lambda hands the entry points (an SQS batch, an EventBridge event) and a Lambda
 * context: they live in the shared kit, re-exported here for the handler tests.
 */
export {
  type EventBridgeEvent,
  eventBridgeEvent,
  failedIds,
  lambdaContext,
  type SqsRecordOptions,
  sqsEvent,
  sqsRecord,
} from '../../../../testkit';
