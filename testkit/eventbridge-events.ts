import { randomUUID } from 'node:crypto';

export interface EventBridgeEvent {
  readonly version: string;
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: unknown;
}

/** An EventBridge event carrying `detail`, routed by `detail-type` = the action name. */
export const eventBridgeEvent = (
  detailType: string,
  detail: unknown,
  id: string = randomUUID(),
): EventBridgeEvent => ({
  version: '0',
  id,
  'detail-type': detailType,
  source: 'crm.example',
  account: '123456789012',
  time: new Date().toISOString(),
  region: 'us-east-1',
  resources: [],
  detail,
});
