import { Match } from 'aws-cdk-lib/assertions';

/** Policy statements as the infra tests expect CDK to render them. */

/** The statement of a resource policy that refuses every request not made over TLS. */
export const denyInsecureTransport = () =>
  Match.objectLike({
    Effect: 'Deny',
    Condition: { Bool: { 'aws:SecureTransport': 'false' } },
  });

/**
 * The statement CDK renders to let a function read the secret named `name` (its random suffix
 * matched by `-??????`) in `region`, or in the stack's own region when `region` is undefined.
 */
export const readSecretStatement = (sid: string, region: string | undefined, name: string) => ({
  Sid: sid,
  Effect: 'Allow',
  Action: 'secretsmanager:GetSecretValue',
  Resource: {
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ...(region === undefined
          ? [':secretsmanager:', { Ref: 'AWS::Region' }, ':']
          : [`:secretsmanager:${region}:`]),
        { Ref: 'AWS::AccountId' },
        `:secret:${name}-??????`,
      ],
    ],
  },
});
