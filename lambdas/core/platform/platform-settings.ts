import type { PlatformRegion } from './regions';

/** What the platform clients need from deployment config (filled from the Lambda environment). */
export interface PlatformSettings {
  /** `<PLATFORM_CODE>`: body `platform` / `tenant.platform` and header `X-sc-platform-code`. */
  readonly platformCode: string;
  /** `<COMPANY_ALIAS>`: body `companyCode` and header `X-sc-company-code`. */
  readonly companyCode: string;
  /** `<ENVIRONMENT_NAME>`: body `environment` and header `X-sc-company-environment`. */
  readonly environmentName: string;
  /** `https://[<region>.]<host>:9443`, or a full override such as `http://127.0.0.1:4010` locally. */
  readonly baseUrl: string;
  /** Body `region` of realtime requests when the message does not carry one. */
  readonly campaignRegion: PlatformRegion;
  /** Header `X-sc-secrets-region`: region of the secret holding the API key. */
  readonly secretsRegion: string;
}

/** HTTP behaviour of the clients. */
export interface HttpSettings {
  /** Abort one request after this long. @default 5000 */
  readonly requestTimeoutMs: number;
  /** Attempts per call for transient failures (the 401 refresh retry is extra). @default 3 */
  readonly maxAttempts: number;
  /** Full-jitter backoff base. @default 100 */
  readonly baseDelayMs: number;
  /** Backoff cap, also the cap on an honoured Retry-After. @default 2000 */
  readonly maxDelayMs: number;
}

export const DEFAULT_HTTP_SETTINGS: HttpSettings = {
  requestTimeoutMs: 5000,
  maxAttempts: 3,
  baseDelayMs: 100,
  maxDelayMs: 2000,
};
