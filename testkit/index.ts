/**
 * What a handler needs to run outside Lambda, built as AWS builds it: the invocation context,
 * SQS and EventBridge events, API Gateway's requests to the SCIM function (and an IdP's call
 * through it), an in-memory API key source over an in-memory secret, and reconciliation's
 * platform reads against a local platform. One kit for the tests, the bench and the local run
 * (`npm start`).
 */

export * from './api-gateway-events';
export * from './api-key-source';
export * from './eventbridge-events';
export * from './lambda-context';
export * from './platform-reader';
export * from './scim-requests';
export * from './sqs-events';
