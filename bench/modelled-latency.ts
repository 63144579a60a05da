/**
 * What the services the functions call take to answer, modelled: loopback answers in well
 * under a millisecond, which would make every wait look free. Each fake (DynamoDB, Secrets
 * Manager) and the simulator wait this long before answering; `npm run bench -- --dynamodb-ms
 * …` changes them.
 */
export interface ModelledLatency {
  /** Each DynamoDB request: single-digit milliseconds in-Region. */
  readonly dynamoDbMs: number;
  /** GetSecretValue. */
  readonly secretsManagerMs: number;
  /** Each platform request, over the internet to the contact-center platform. */
  readonly platformMs: number;
}

export const DEFAULT_LATENCY: ModelledLatency = {
  dynamoDbMs: 5,
  secretsManagerMs: 20,
  platformMs: 80,
};

export const describeLatency = (latency: ModelledLatency): string =>
  `DynamoDB ${latency.dynamoDbMs} ms, Secrets Manager ${latency.secretsManagerMs} ms, platform ${latency.platformMs} ms`;
