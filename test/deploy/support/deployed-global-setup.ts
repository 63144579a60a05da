/**
 * Global setup of the `deploy` project: starts the platform simulator and MiniStack (loopback,
 * HTTPS, IAM on), deploys the synthesized stack into it once (`startDeployment`, as
 * `npm start -- --deployed` does) and tells the test files where everything is
 * (`inject('deployed')`, read through `deployed-context.ts`). Stops both after.
 */
import type { TestProject } from 'vitest/node';
import { startDeployment } from '../../../local/aws-emulator/deployment';
import { startSimulator } from '../../../local/simulator';
import {
  DEPLOY_API_KEY,
  DEPLOY_REGION,
  DEPLOY_SCIM_TOKEN,
  DEPLOY_SCIM_TOKEN_SECRET_ID,
  DEPLOY_TENANT,
  deployConfig,
} from './deploy-config';

export interface DeployedSetup {
  readonly endpoint: string;
  readonly region: string;
  readonly account: string;
  readonly caCertificate: string;
  readonly stackName: string;
  readonly outputs: Readonly<Record<string, string>>;
  /** `http://127.0.0.1:<port>` of the simulator the functions call. */
  readonly platformUrl: string;
  /** The cloud assembly of the deployed stack (template and assets), for copies with faults. */
  readonly assemblyDir: string;
  readonly assetManifest: string;
  readonly python: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    deployed: DeployedSetup;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const simulator = await startSimulator({
    apiKey: DEPLOY_API_KEY,
    ...DEPLOY_TENANT,
    secretsRegion: DEPLOY_REGION,
  });
  const deployment = await startDeployment({
    config: deployConfig(simulator.baseUrl),
    apiKey: DEPLOY_API_KEY,
    region: DEPLOY_REGION,
    // The SCIM token's secret is the operator's, like the API key's: it exists before the stack.
    secrets: [{ name: DEPLOY_SCIM_TOKEN_SECRET_ID, value: DEPLOY_SCIM_TOKEN }],
  }).catch(async (error: unknown) => {
    await simulator.close();
    throw error;
  });
  const { server, project: deployed } = deployment;
  project.provide('deployed', {
    endpoint: server.endpoint,
    region: server.region,
    account: server.account,
    caCertificate: server.caCertificate,
    stackName: deployed.stackName,
    outputs: deployed.outputs,
    platformUrl: simulator.baseUrl,
    assemblyDir: deployed.synthesized.assemblyDir,
    assetManifest: deployed.synthesized.assetManifest,
    python: deployment.python,
  });
  return async () => {
    await deployment.stop();
    await simulator.close();
  };
}
