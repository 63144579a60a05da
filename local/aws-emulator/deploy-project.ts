/**
 * The project's stack for one config, deployed into MiniStack: synthesized with its bundles,
 * the API key secret created (a deployment's prerequisite, as in docs/deploy.md), the assets
 * published and the template created unmodified. `npm start -- --deployed` and the deploy tests
 * (test/deploy/) share it; the config's platform must already point at the platform to use.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { createApp } from '../../lib/app';
import { type DeploymentConfig, stackNameFor } from '../../lib/config';
import {
  type DeployedStack,
  deployTemplate,
  type EmulatorEndpoint,
  emulatorClientConfig,
  publishAssets,
  type SynthesizedStack,
  synthesizeStack,
} from './deployed-stack';
import type { MiniStackServer } from './ministack-server';

export interface DeployProjectOptions {
  readonly server: EmulatorEndpoint & Partial<Pick<MiniStackServer, 'recentOutput'>>;
  readonly config: DeploymentConfig;
  /** The platform API key the secret `config.apiKey.secretId` holds. */
  readonly apiKey: string;
  /** The Python that zips the function bundles (the tools venv's). */
  readonly python: string;
  /** @default the emulator's own account */
  readonly account?: string;
}

export interface DeployedProject extends DeployedStack {
  readonly synthesized: SynthesizedStack;
}

/** Synthesizes `config`'s stack into a fresh directory (with bundling). */
export const synthesizeProject = (config: DeploymentConfig): SynthesizedStack => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'deployed-cdk-out-'));
  const { app } = createApp(config, { outdir });
  return synthesizeStack(app, stackNameFor(config));
};

/** Creates (or replaces) the API key secret the stack's functions read. */
export const putApiKeySecret = async (
  options: Pick<DeployProjectOptions, 'server' | 'config' | 'apiKey' | 'account'>,
): Promise<void> => {
  const secrets = new SecretsManagerClient(emulatorClientConfig(options.server, options.account));
  const name = options.config.apiKey.secretId;
  try {
    await secrets.send(new CreateSecretCommand({ Name: name, SecretString: options.apiKey }));
  } catch (error) {
    if ((error as Error).name !== 'ResourceExistsException') throw error;
    await secrets.send(new PutSecretValueCommand({ SecretId: name, SecretString: options.apiKey }));
  }
};

/** Synthesizes, publishes and creates the stack; resolves once it is CREATE_COMPLETE. */
export const deployProject = async (options: DeployProjectOptions): Promise<DeployedProject> => {
  const synthesized = synthesizeProject(options.config);
  await publishAssets(options.server, synthesized, options.python, options.account);
  await putApiKeySecret(options);
  const deployed = await deployTemplate(
    options.server,
    synthesized.stackName,
    synthesized.template,
    { account: options.account },
  );
  return { ...deployed, synthesized };
};
