/**
 * Wires one deployment config into a CDK app, with cdk-nag's AWS Solutions and Serverless checks
 * on every synth. `bin/app.ts` and the tests share this so they check the same thing.
 */
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { type DeploymentConfig, stackNameFor } from './config';
import { ContactCenterSyncStack } from './contact-center-sync-stack';

/** Adds the config's stack to `app` and registers the cdk-nag checks. */
export const addDeployment = (app: App, config: DeploymentConfig): ContactCenterSyncStack => {
  const stackName = stackNameFor(config);
  const stack = new ContactCenterSyncStack(app, stackName, {
    config,
    stackName,
    description: `contact-center-sync (${config.tenant.companyCode}/${config.tenant.environmentName}): CRM and HR events to the contact-center platform`,
    env:
      config.deployment === undefined
        ? undefined
        : { account: config.deployment.account, region: config.deployment.region },
  });
  // cdk-nag 3 packs are policy-validation plugins: any unacknowledged finding fails the synth.
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app, { verbose: true }),
    new ServerlessChecks(app, { verbose: true }),
  );
  return stack;
};

/** A fresh app holding only the config's stack (tests, scripts). */
export const createApp = (
  config: DeploymentConfig,
  appProps?: AppProps,
): { readonly app: App; readonly stack: ContactCenterSyncStack } => {
  const app = new App(appProps);
  return { app, stack: addDeployment(app, config) };
};
