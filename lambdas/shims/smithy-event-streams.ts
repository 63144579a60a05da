/**
 * `@smithy/core/event-streams` as the Lambda bundle sees it (an esbuild alias, see
 * lib/bundling.ts). The SDK loads it on first use for operations that stream events; none of
 * the operations the functions call (DynamoDB, Secrets Manager, SQS, EventBridge) does, yet the
 * module was parsed at every cold start. Should one ever be called, it fails loudly here.
 */
const notBundled = (): never => {
  throw new Error(
    'SDK event streams are left out of the Lambda bundle (lib/bundling.ts BUNDLE_ALIASES)',
  );
};

export class EventStreamSerde {
  constructor() {
    notBundled();
  }
}

export const eventStreamSerdeProvider = notBundled;
