/**
 * The deployment the deploy tests create in MiniStack: every action, two reconcile scopes (one
 * auto-applied, one plan-only), the SCIM endpoint, the platform pointed at the simulator the
 * global setup starts.
 */
import { type DeploymentConfig, parseConfig } from '../../../lib/config';
import { withPlatformAt } from '../../../local/aws-emulator/deployment';

export const DEPLOY_REGION = 'eu-central-1';
export const DEPLOY_TENANT = {
  platformCode: 'CCPLATFORM',
  companyCode: 'deploytest',
  environmentName: 'deployed',
} as const;
export const DEPLOY_API_KEY = 'deployed-test-api-key-0001';
/** The IdP's bearer token, in its own secret (`scim.tokenSecretId`) as an operator creates it. */
export const DEPLOY_SCIM_TOKEN = 'deployed-test-scim-token-0001';
export const DEPLOY_SCIM_TOKEN_SECRET_ID = 'contact-center-sync/scim-token';
export const ALLOWED_SOURCES = ['crm.deployed', 'hr.deployed'] as const;

/** The deployment config with its platform at `platformBaseUrl` (the simulator). */
export const deployConfig = (platformBaseUrl: string): DeploymentConfig => {
  const parsed = parseConfig(
    {
      tenant: DEPLOY_TENANT,
      // Replaced below: the config accepts only an https platform, the simulator speaks http.
      platform: { host: 'platform.example.com', region: DEPLOY_REGION },
      apiKey: { secretId: 'contact-center-sync/api-key', secretsRegion: DEPLOY_REGION },
      allowedSources: [...ALLOWED_SOURCES],
      reconcile: {
        scopes: {
          roster: { kind: 'users', apply: 'auto' },
          review: { kind: 'users', apply: 'plan-only' },
        },
      },
      scim: {
        enabled: true,
        tokenSecretId: DEPLOY_SCIM_TOKEN_SECRET_ID,
        defaults: { userTemplateName: 'Agent-Standard' },
      },
    },
    'deploy test config',
  );
  return withPlatformAt(parsed, platformBaseUrl);
};
