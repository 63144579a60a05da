/** The platform variables every function's environment carries (`platformEnvShape`), all valid. */
export const VALID_PLATFORM_ENV = {
  PLATFORM_CODE: 'PLAT',
  COMPANY_CODE: 'acme',
  ENVIRONMENT_NAME: 'prod',
  API_BASE_URL: 'https://eu-central-1.platform.example.com:9443',
  CAMPAIGN_REGION: 'eu-central-1',
  API_KEY_SECRET_ID: 'platform/api-key',
  API_KEY_SECRETS_REGION: 'eu-central-1',
  API_KEY_MAX_AGE_SECONDS: '300',
} as const;
