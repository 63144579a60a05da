/**
 * AWS SDK implementations of the ports in `../ports.ts`, one per file. Clients use the standard
 * SDK configuration only (credential chain, AWS_REGION, `AWS_ENDPOINT_URL_<SERVICE>`), so the
 * same code runs in Lambda and against an emulator. Every constructor accepts a client for tests.
 */

export * from './client-config';
export * from './dynamodb-brake-store';
export * from './dynamodb-breaker-store';
export * from './dynamodb-census-store';
export * from './event-bridge-result-publisher';
export * from './result-event-detail';
export * from './secrets-manager-api-key-source';
export * from './sqs-dead-letter-sink';
export * from './sqs-held-queue';
export * from './sqs-queue';
export * from './sqs-visibility-rescheduler';
