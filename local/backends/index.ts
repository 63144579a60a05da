/**
 * Where `npm start` keeps the deployment's queues, rules, dead-letter queues, secret and ledger:
 * in memory (the default) or in an AWS emulator. The run reaches both through `createBackend`
 * only; each implements the one `Backend` interface. `--deployed` is not a `Backend`: the
 * deployed functions run the handlers, so the run only sends and observes (`DeployedStackRun`).
 */
import { PythonToolsUnavailableError, type ToolsProgress } from '../aws-emulator/python-tools';
import { EMULATOR_RETRY_SCHEDULE, EmulatorBackend } from './aws-emulator';
import type { Backend, BackendSettings } from './backend';
import { InMemoryBackend } from './in-memory';

export type { ToolsProgress } from '../aws-emulator/python-tools';
export type { Backend, BackendSettings, DeadLetterFound } from './backend';
export type {
  DeployedDeadLetter,
  DeployedObservation,
  LoggedDisposition,
  LoggedKind,
  StartDeployedOptions,
} from './deployed';
/** `--deployed`: the stack in MiniStack; the run puts events on its bus and watches. */
export { DeployedStackRun } from './deployed';
/** The emulator's needs (Python with venv and pip, or PyPI for a first run) are missing. */
/** The retry window and backoff an emulator run uses (its queues run in real time). */
export { EMULATOR_RETRY_SCHEDULE, PythonToolsUnavailableError };

export type BackendKind = 'in-memory' | 'aws-emulator';

export interface CreateBackendOptions {
  readonly settings: BackendSettings;
  readonly apiKey: string;
  /** Told each step while an emulator is prepared. @default silent */
  readonly progress?: ToolsProgress;
}

export const createBackend = async (
  kind: BackendKind,
  options: CreateBackendOptions,
): Promise<Backend> =>
  kind === 'aws-emulator'
    ? EmulatorBackend.start(options)
    : new InMemoryBackend(options.settings, options.apiKey);
