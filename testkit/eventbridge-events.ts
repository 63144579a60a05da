import { randomUUID } from 'node:crypto';

/**
 * An event as EventBridge delivers it to a target: to a function, or as the body of an SQS
 * message when the rule's target is a queue.
 */
export interface EventBridgeEvent<Detail = unknown> {
  readonly version: string;
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: Detail;
}

export interface EventBridgeEventOptions {
  /** @default a random UUID, as EventBridge assigns one */
  readonly id?: string;
  /** @default 'crm.example' */
  readonly source?: string;
  /** @default '123456789012' */
  readonly account?: string;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** ISO 8601 in EventBridge's format (whole seconds). @default now */
  readonly time?: string;
  /** @default [] */
  readonly resources?: readonly string[];
}

/** The time EventBridge stamps on an event: ISO 8601 to the second. */
export const eventBridgeTime = (epochMs: number): string =>
  new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * An EventBridge event carrying `detail`, routed by `detail-type` (the action name). A string
 * is the event's `id`.
 */
export const eventBridgeEvent = <Detail>(
  detailType: string,
  detail: Detail,
  options: EventBridgeEventOptions | string = {},
): EventBridgeEvent<Detail> => {
  const o: EventBridgeEventOptions = typeof options === 'string' ? { id: options } : options;
  return {
    version: '0',
    id: o.id ?? randomUUID(),
    'detail-type': detailType,
    source: o.source ?? 'crm.example',
    account: o.account ?? '123456789012',
    time: o.time ?? eventBridgeTime(Date.now()),
    region: o.region ?? 'us-east-1',
    resources: o.resources ?? [],
    detail,
  };
};
