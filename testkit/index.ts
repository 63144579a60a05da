/**
 * The fakes of what Lambda and Secrets Manager hand a handler, shared by the tests, the bench
 * and the local run: one definition of each.
 */
export { InMemoryApiKeySource } from './api-key-source';
export { type EventBridgeEvent, eventBridgeEvent } from './eventbridge-events';
export { type LambdaContextOptions, lambdaContext } from './lambda-context';
export { type SqsRecordOptions, sqsEvent, sqsRecord } from './sqs-events';
