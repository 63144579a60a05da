/**
 * Global setup of the `deploy` project: starts the platform simulator and MiniStack (loopback,
 * HTTPS, IAM on), deploys the synthesized stack into it once and tells the test files where
 * everything is (`inject('deployed')`, read through `deployed-context.ts`). Stops both after.
 */
import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { deployProject } from '../../../local/aws-emulator/deploy-project';
import { startMiniStack } from '../../../local/aws-emulator/ministack-server';
import { ensurePythonTools } from '../../../local/aws-emulator/python-tools';
import { startSimulator } from '../../../local/simulator';
import { REPO_BIN } from '../../support/repo-paths';
import { DEPLOY_API_KEY, DEPLOY_REGION, DEPLOY_TENANT, deployConfig } from './deploy-config';

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
  const tools = await ensurePythonTools();
  const simulator = await startSimulator({
    apiKey: DEPLOY_API_KEY,
    ...DEPLOY_TENANT,
    secretsRegion: DEPLOY_REGION,
  });
  const server = await startMiniStack({
    region: DEPLOY_REGION,
    python: tools.python,
    // Its functions run on the project's Node 24, not the system's.
    pathPrefix: [REPO_BIN],
  }).catch(async (error: unknown) => {
    await simulator.close();
    throw error;
  });
  try {
    const deployed = await deployProject({
      server,
      config: deployConfig(simulator.baseUrl),
      apiKey: DEPLOY_API_KEY,
      python: tools.python,
    });
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
      python: tools.python,
    });
    return async () => {
      await server.stop();
      await simulator.close();
      rmSync(deployed.synthesized.assemblyDir, { recursive: true, force: true });
    };
  } catch (error) {
    await server.stop();
    await simulator.close();
    throw error;
  }
}
