/**
 * CDK entry point: `npx cdk synth|deploy -c config=<name>` builds the stack of
 * `config/<name>.json` (default `example`).
 */
import { App } from 'aws-cdk-lib';
import { addDeployment } from '../lib/app';
import { ConfigError, loadConfig } from '../lib/config';

const DEFAULT_CONFIG = 'example';

const app = new App();
const name: unknown = app.node.tryGetContext('config') ?? DEFAULT_CONFIG;

try {
  addDeployment(app, loadConfig(String(name)));
  app.synth();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  // A config mistake is the user's to fix: show the fields, not a stack trace.
  console.error(`Invalid deployment config:\n${error.message}`);
  process.exitCode = 1;
}
