/**
 * Global setup of the `integration` project: installs the Python tools when needed, starts
 * ONE moto server for all integration test files and stops it afterwards. Test files read
 * its endpoint with `inject('motoEndpoint')` (see `aws-clients.ts`) and isolate themselves
 * by unique resource names, because they run concurrently against the same server.
 */
import type { TestProject } from 'vitest/node';
import { startMotoServer } from '../../local/aws-emulator/moto-server';
import { ensurePythonTools } from '../../local/aws-emulator/python-tools';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `http://127.0.0.1:<port>` of the shared moto server. */
    motoEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const tools = await ensurePythonTools();
  const server = await startMotoServer({ python: tools.python });
  project.provide('motoEndpoint', server.endpoint);
  return () => server.stop();
}
