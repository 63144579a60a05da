/**
 * Shared helpers of the infrastructure tests: configs to start from and a synth that skips
 * esbuild unless a test needs the real bundles (the template is the same either way, only the
 * asset hashes differ).
 */
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import {
  ACTION_NAMES,
  type ActionName,
  actionDefinition,
  BRAKED_ACTIONS,
  type ServiceName,
} from '../../lambdas/actions';
import { createApp } from '../../lib/app';
import { type DeploymentConfig, type DeploymentConfigInput, parseConfig } from '../../lib/config';

/** The smallest valid config: everything else takes its default. */
export const minimalConfigInput = (): DeploymentConfigInput => ({
  tenant: { platformCode: 'CCPLATFORM', companyCode: 'testcorp', environmentName: 'test' },
  platform: { host: 'platform.example.com', region: 'eu-central-1' },
  apiKey: { secretId: 'contact-center-sync/api-key', secretsRegion: 'eu-central-1' },
  allowedSources: ['crm', 'hr'],
});

/** `minimalConfigInput()` with top-level fields replaced, validated. */
export const configWith = (overrides: Partial<DeploymentConfigInput> = {}): DeploymentConfig =>
  parseConfig({ ...minimalConfigInput(), ...overrides }, 'test config');

/**
 * A config without its reconcile scopes: the files about the action pipelines count their
 * functions, rules and policies; reconciliation has its own (reconciliation.test.ts).
 */
export const withoutReconciliation = (config: DeploymentConfig): DeploymentConfig => ({
  ...config,
  reconcile: { ...config.reconcile, scopes: {} },
});

/** A config without the SCIM endpoint: its function and role are tested in scim-api.test.ts. */
export const withoutScim = (config: DeploymentConfig): DeploymentConfig => ({
  ...config,
  scim: { ...config.scim, enabled: false },
});

export interface Synthesized {
  readonly stack: ReturnType<typeof createApp>['stack'];
  readonly app: ReturnType<typeof createApp>['app'];
  readonly template: Template;
}

/** App props that skip esbuild: no stack is selected for bundling. */
export const NO_BUNDLING = { context: { 'aws:cdk:bundling-stacks': [] } };

/** Synthesizes the config's stack (with the cdk-nag plugin, as `bin/app.ts` does). */
export const synth = (
  config: DeploymentConfig,
  options: { bundle?: boolean } = {},
): Synthesized => {
  const { app, stack } = createApp(config, options.bundle ? undefined : NO_BUNDLING);
  return { app, stack, template: Template.fromStack(stack) };
};

/** The platform services the actions call, each once: the stack alarms on each one's breaker. */
export const platformServicesOf = (actions: readonly ActionName[]): ServiceName[] => [
  ...new Set(actions.map((action) => actionDefinition(action).service)),
];

/**
 * The alarms of a stack with the `enabled` actions: 4 per action (DLQ depth, oldest message,
 * errors, throttles), 2 more per action with a mass-delete brake (held messages, held too long)
 * and 1 per platform service (its breaker).
 */
export const alarmCountOf = (
  enabled: readonly ActionName[],
  braked: readonly ActionName[],
): number => 4 * enabled.length + 2 * braked.length + platformServicesOf(enabled).length;

/** The alarms of a stack with every action enabled and every brake on. */
export const ALL_ACTIONS_ALARM_COUNT = alarmCountOf(ACTION_NAMES, BRAKED_ACTIONS);

/** Logical id of a construct's CloudFormation resource (an L2 construct or the L1 itself). */
export const logicalId = (construct: IConstruct): string => {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(construct).getLogicalId(element);
};

export const getAtt = (construct: IConstruct, attribute = 'Arn') => ({
  'Fn::GetAtt': [logicalId(construct), attribute],
});

export const ref = (construct: IConstruct) => ({ Ref: logicalId(construct) });

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** Every resource of a type, by logical id. */
export const resourcesOfType = (template: Template, type: string): Resources =>
  template.findResources(type) as Resources;

/** Properties of one resource; throws when the template has no such resource. */
export const propertiesOf = <T = Record<string, unknown>>(
  template: Template,
  type: string,
  id: string,
): T => {
  const properties = resourcesOfType(template, type)[id]?.Properties;
  if (properties === undefined) throw new Error(`no ${type} ${id} in the template`);
  return properties as T;
};

export interface PolicyStatement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

/** Statements of every AWS::IAM::Policy of the template (optionally: attached to `roleId`). */
export const identityStatements = (template: Template, roleId?: string): PolicyStatement[] =>
  Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter(
      (policy) =>
        roleId === undefined || JSON.stringify(policy.Properties?.Roles).includes(`"${roleId}"`),
    )
    .flatMap(
      (policy) =>
        (policy.Properties?.PolicyDocument as { Statement?: PolicyStatement[] } | undefined)
          ?.Statement ?? [],
    );

export const actionsOf = (statement: PolicyStatement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];
