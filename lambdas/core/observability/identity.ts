/** Service name on every log line and metric (Powertools); POWERTOOLS_SERVICE_NAME overrides it. */
export const SERVICE_NAME = 'contact-center-sync';

/** CloudWatch namespace of the EMF metrics; POWERTOOLS_METRICS_NAMESPACE overrides it. */
export const METRICS_NAMESPACE = 'ContactCenterSync';

/** EventBridge `source` of every event this integration publishes. */
export const RESULT_EVENT_SOURCE = 'contact-center-sync';

/** `detail-type` of the result event a read action publishes. */
export const resultDetailType = (action: string): string => `${action}.result`;
