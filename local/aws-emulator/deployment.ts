/**
 * One deployment of the project in MiniStack, as `npm start -- --deployed` and the deploy
 * tests' global setup (test/deploy/) both make it: the tools venv, MiniStack (loopback, HTTPS,
 * IAM on) whose functions run on the project's Node 24, and the stack of one config created in
 * it with its platform at the simulator. `stop` ends MiniStack and removes the synthesized
 * assembly.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { DeploymentConfig } from '../../lib/config';
import { type DeployedProject, deployProject, putSecret } from './deploy-project';
import { type MiniStackServer, startMiniStack } from './ministack-server';
import { ensurePythonTools, type ToolsProgress } from './python-tools';

/** The repository's `node_modules/.bin`: MiniStack's functions run on its `node` (24). */
const REPO_BIN = path.resolve(import.meta.dirname, '..', '..', 'node_modules', '.bin');

/**
 * `config` with its platform at `baseUrl`. The config accepts only an https platform; the
 * simulator speaks http on loopback, so the resolved URL is replaced after parsing.
 */
export const withPlatformAt = (config: DeploymentConfig, baseUrl: string): DeploymentConfig => ({
  ...config,
  platform: { ...config.platform, baseUrl },
});

export interface StartDeploymentOptions {
  /** Its platform already at the simulator (`withPlatformAt`). */
  readonly config: DeploymentConfig;
  /** The platform API key the stack's secret holds. */
  readonly apiKey: string;
  /** @default the config's `apiKey.secretsRegion` */
  readonly region?: string;
  /** Secrets an operator creates before the deploy (the SCIM token's). @default none */
  readonly secrets?: readonly { readonly name: string; readonly value: string }[];
  /** Told each step (the venv's first install, MiniStack, synth, CreateStack). @default silent */
  readonly progress?: ToolsProgress;
}

export interface Deployment {
  readonly server: MiniStackServer;
  readonly project: DeployedProject;
  /** The tools venv's Python (zips assets for a second deployment). */
  readonly python: string;
  /** Stops MiniStack (and its function processes) and removes the assembly. Idempotent. */
  stop(): Promise<void>;
}

export const startDeployment = async (options: StartDeploymentOptions): Promise<Deployment> => {
  const progress = options.progress ?? { step: () => {} };
  const tools = await ensurePythonTools({ progress });
  progress.step('starting MiniStack (HTTPS, IAM enforced)');
  const server = await startMiniStack({
    region: options.region ?? options.config.apiKey.secretsRegion,
    python: tools.python,
    // Its functions run on the project's Node 24, not the system's.
    pathPrefix: [REPO_BIN],
  });
  try {
    for (const secret of options.secrets ?? []) await putSecret(server, secret);
    progress.step('synthesizing and bundling the stack, then CreateStack');
    const project = await deployProject({
      server,
      config: options.config,
      apiKey: options.apiKey,
      python: tools.python,
    });
    return {
      server,
      project,
      python: tools.python,
      stop: async () => {
        await server.stop();
        rmSync(project.synthesized.assemblyDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
};
