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
