/**
 * What a function needs to read the platform's API key: `GetSecretValue` on exactly the one
 * secret and, when it is encrypted with a customer-managed key, `kms:Decrypt` through Secrets
 * Manager only. Every function that calls the platform gets it the same way.
 */
import * as iam from 'aws-cdk-lib/aws-iam';

export interface ApiKeyGrant {
  readonly secretArn: string;
  readonly kmsKeyArn?: string | undefined;
  /** Region of the secret, for the key's `kms:ViaService` condition. */
  readonly secretsRegion: string;
}

export const grantApiKeyRead = (role: iam.IRole, grant: ApiKeyGrant): void => {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ReadApiKey',
      actions: ['secretsmanager:GetSecretValue'],
      resources: [grant.secretArn],
    }),
  );
  if (grant.kmsKeyArn === undefined) return;
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'DecryptApiKey',
      actions: ['kms:Decrypt'],
      resources: [grant.kmsKeyArn],
      conditions: {
        StringEquals: { 'kms:ViaService': `secretsmanager.${grant.secretsRegion}.amazonaws.com` },
      },
    }),
  );
};
