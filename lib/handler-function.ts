/**
 * What every function of the stack is built with: its own role, which may log only to the
 * function's log group, and the NodejsFunction props they all share (Node 24 on ARM64, bundled
 * by `HANDLER_BUNDLING` from the project root).
 */
import { fileURLToPath } from 'node:url';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { HANDLER_BUNDLING, HANDLER_RUNTIME } from './bundling';

/**
 * A function's own role instead of AWSLambdaBasicExecutionRole: it writes only to `logGroup`;
 * `allow` adds each further statement the function needs.
 */
export const handlerRole = (
  scope: Construct,
  id: string,
  options: { readonly description: string; readonly logGroup: logs.ILogGroup },
) => {
  const role = new iam.Role(scope, id, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: options.description,
  });
  options.logGroup.grantWrite(role);
  const allow = (statement: iam.PolicyStatementProps) =>
    role.addToPolicy(new iam.PolicyStatement(statement));
  return { role, allow };
};

/** The NodejsFunction props every handler shares; each adds its entry, role, sizes and environment. */
export const HANDLER_FUNCTION_PROPS = {
  handler: 'handler',
  runtime: HANDLER_RUNTIME,
  architecture: lambda.Architecture.ARM_64,
  projectRoot: fileURLToPath(new URL('../', import.meta.url)),
  depsLockFilePath: fileURLToPath(new URL('../package-lock.json', import.meta.url)),
  bundling: HANDLER_BUNDLING,
} as const satisfies Partial<nodejs.NodejsFunctionProps>;
