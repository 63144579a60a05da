import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { counted } from '../../ops/counted';
import {
  type Backend,
  type BackendKind,
  createBackend,
  DeployedStackRun,
  EMULATOR_RETRY_SCHEDULE,
} from '../backends';
import { applyInOrder, compareStates, type EntityVerdict, project } from '../convergence/model';
import { routeEvent } from '../in-memory/event-rules';
import { type RunningSimulator, startSimulator } from '../simulator';
import { chaosScenario } from './chaos';
import { runDeployedPipeline } from './deployed-pipeline';
import { loadScenario, type Scenario } from './event-input';
import { evaluateRun } from './expectations';
import { RUN_FAULTS, type RunObserver, type RunResult, runPipeline } from './pipeline';
import { type ProgressWriter, startPreparationProgress } from './preparation-progress';
import {
  formatFate,
  formatPhase,
  formatPlatform,
  formatRetry,
  formatSummary,
  formatVerdict,
  LINE_WIDTH,
  messageHeader,
  type Style,
  wrap,
} from './report';
import { fileLogSink, type LogSink } from './run-logger';
import {
  loadRunSettings,
  type RunSettings,
  runPlatformOf,
  runSimulatorOptions,
  withRetrySchedule,
} from './run-settings';

/** Exit codes of `npm start`. */
export const EXIT = {
  /** Every message ended where it should. */
  ok: 0,
  /** At least one message did not (the output says which). */
  failed: 1,
  /** The run could not start: bad input or config, or the AWS emulator's needs are missing. */
  cannotRun: 2,
} as const;

export interface RunOptions {
  /** Repository root: default paths (examples/, config/, .tools/) are relative to it. */
  readonly root: string;
  /** `--events`: a file or folder, relative to `cwd`. Default: `<root>/examples`. */
  readonly events?: string;
  /** Where relative `--events` paths start (the shell's directory). */
  readonly cwd: string;
  readonly faults: boolean;
  /**
   * `--chaos [seed]`: the routed events shuffled, some twice, all queues at once, with faults;
   * then every entity is held against the model. The seed picks the order.
   */
  readonly chaos?: number;
  /** `--outage <duration>`: the platform is down this long from the start (virtual time). */
  readonly outageMs?: number;
  /**
   * Where the queues, rules, DLQs, secret and ledger live. `deployed`: config/example.json's
   * stack deployed into MiniStack, its functions running the handlers. @default 'in-memory'
   */
  readonly backend?: BackendKind | 'deployed';
  readonly out: (line: string) => void;
  /** Where progress goes while the backend is prepared (stderr: it is not the run's report). */
  readonly progressOut: ProgressWriter;
  readonly style: Style;
  /** @default <root>/.tools/local-run.log */
  readonly logFile?: string;
}

const relativeTo = (root: string, file: string): string => {
  const relative = path.relative(root, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
};

export const seedSimulator = (simulator: RunningSimulator, scenario: Scenario): void => {
  for (const user of scenario.seed.users) {
    simulator.state.addUser({
      loginUserId: user.loginUserId,
      firstName: user.firstName,
      lastName: user.lastName,
      userTemplateName: user.userTemplateName,
      ...(user.primaryEmailAddr === undefined ? {} : { primaryEmailAddr: user.primaryEmailAddr }),
      ...(user.inCloudConnect === undefined ? {} : { inCloudConnect: user.inCloudConnect }),
    });
  }
};

/**
 * The model's platform: a fresh simulator with the same seed data, given the scenario's events
 * once each in order; then both platforms are compared entity by entity.
 */
const checkConvergence = async (
  scenario: Scenario,
  actual: RunningSimulator,
  settings: RunSettings,
  apiKey: string,
): Promise<EntityVerdict[]> => {
  const expected = await startSimulator(runSimulatorOptions(settings, apiKey));
  try {
    seedSimulator(expected, scenario);
    // What the producers sent that reached a queue (an unrouted event never happened here).
    const events = scenario.phases
      .flatMap((phase) => phase.events)
      .filter((event) => routeEvent(event, settings.actions).routed)
      .map((event) => ({ action: event.detailType, message: event.detail }));
    await applyInOrder(events, expected, runPlatformOf(settings), apiKey);
    return compareStates(project(expected, events), project(actual, events));
  } finally {
    await expected.close();
  }
};

/** The fields that differ, or the whole states when their shapes differ. */
const differences = (verdict: EntityVerdict): string[] => {
  const parse = (text: string): Record<string, unknown>[] | undefined => {
    try {
      const value: unknown = JSON.parse(text);
      return Array.isArray(value) && value.length === 1 ? value : undefined;
    } catch {
      return undefined;
    }
  };
  const [want] = parse(verdict.expected) ?? [];
  const [got] = parse(verdict.actual) ?? [];
  if (want === undefined || got === undefined) {
    return [`expected ${verdict.expected}`, `got      ${verdict.actual}`];
  }
  return Object.keys({ ...want, ...got })
    .filter((key) => JSON.stringify(want[key]) !== JSON.stringify(got[key]))
    .map((key) => `${key}: expected ${JSON.stringify(want[key])}, got ${JSON.stringify(got[key])}`);
};

const formatConvergence = (
  verdicts: readonly EntityVerdict[],
  seed: number,
  style: Style,
): string[] => [
  style.bold(`Convergence (seed ${seed}): each entity against its events applied once, in order`),
  ...verdicts.flatMap((verdict) =>
    verdict.converged
      ? [`  ${style.good('same')}  ${verdict.entity}`]
      : [
          `  ${style.bad('DIFF')}  ${verdict.entity}`,
          ...differences(verdict).flatMap((d) => wrap(d, 8)),
        ],
  ),
];

/** The settings of config/example.json, for a run on `kind`. */
export const exampleRunSettings = (root: string, kind: BackendKind | 'deployed'): RunSettings => {
  const configured = loadRunSettings(
    path.join(root, 'config', 'example.json'),
    'config/example.json',
  );
  // The emulator's queues run in real time: a day-long retry window would take a day.
  return kind === 'aws-emulator'
    ? withRetrySchedule(configured, EMULATOR_RETRY_SCHEDULE)
    : configured;
};

/**
 * `npm start`: starts the platform simulator, feeds the scenario's events through the real
 * handlers over in-memory (or emulated) SQS/EventBridge, prints each message's fate as it is
 * decided, then a summary per action, the simulator's final state and the verdict. Returns the
 * exit code.
 */
export const executeRun = async (options: RunOptions): Promise<number> => {
  const { root, style, out } = options;
  const kind = options.backend ?? 'in-memory';
  const settings = exampleRunSettings(root, kind);
  const given = options.events
    ? loadScenario(options.events, options.cwd)
    : loadScenario(path.join(root, 'examples'), root);
  const chaos = options.chaos;
  const scenario = chaos === undefined ? given : chaosScenario(given, settings, chaos);
  const faults = options.faults || chaos !== undefined;
  const totalEvents = scenario.phases.reduce((n, phase) => n + phase.events.length, 0);
  const logFile = options.logFile ?? path.join(root, '.tools', 'local-run.log');

  const apiKey = randomBytes(24).toString('base64url');
  const simulator = await startSimulator(runSimulatorOptions(settings, apiKey));
  let backend: Backend | undefined;
  let deployed: DeployedStackRun | undefined;
  let logSink: LogSink | undefined;
  try {
    seedSimulator(simulator, scenario);
    // An emulator's first run installs moto for about 30 s: say what is going on meanwhile.
    const progress =
      kind === 'deployed'
        ? startPreparationProgress(
            options.progressOut,
            "Deploying config/example.json's stack into MiniStack (the first run installs it into .tools/venv; synth and bundling take about 30 s)…",
          )
        : kind === 'aws-emulator'
          ? startPreparationProgress(
              options.progressOut,
              'Preparing the AWS emulator (moto server; the first run installs it into .tools/venv)…',
            )
          : undefined;
    try {
      if (kind === 'deployed') {
        deployed = await DeployedStackRun.start({
          config: loadConfig('example', path.join(root, 'config')),
          platformBaseUrl: simulator.baseUrl,
          apiKey,
          ...(progress ? { progress } : {}),
        });
      } else {
        backend = await createBackend(kind, {
          settings,
          apiKey,
          ...(progress ? { progress } : {}),
        });
      }
    } finally {
      progress?.finish();
    }
    if (faults) simulator.setFaults(RUN_FAULTS);
    logSink = fileLogSink(logFile);

    const enabled = Object.values(settings.actions).filter((a) => a.enabled);
    const range = (values: number[]): string => {
      const low = Math.min(...values);
      const high = Math.max(...values);
      return low === high ? String(low) : `${low}–${high}`;
    };
    out(style.bold('contact-center-sync: the whole integration on this machine'));
    const header: [string, string][] = [
      [
        'events',
        `${scenario.origin} (${counted(scenario.phases.length, 'file')}, ${counted(totalEvents, 'event')}${scenario.seed.users.length > 0 ? `, ${counted(scenario.seed.users.length, 'seeded user')}` : ''})`,
      ],
      [
        'expected',
        scenario.expectationsOrigin
          ? `${scenario.expectationsOrigin} (${counted(scenario.expectations?.size ?? 0, 'outcome')})`
          : 'none: every message must end applied or dead-lettered with a reason',
      ],
      ['platform', `simulator ${simulator.baseUrl} (both services, generated API key)`],
      ['queues', deployed?.description ?? backend?.description ?? ''],
      [
        'settings',
        `${settings.origin}: batch ${range(enabled.map((a) => a.batchSize))}, maxReceiveCount ${range(enabled.map((a) => a.maxReceiveCount))}, visibility 6 × function timeout = ${range(enabled.map((a) => a.visibilityTimeoutSeconds))} s`,
      ],
      [
        'faults',
        faults
          ? '5xx, 429 + Retry-After, resets, FAILED, lost responses, latency, 1 key rotation, 1 DLQ send'
          : 'off (npm start -- --faults shows retries and dead letters under trouble)',
      ],
    ];
    for (const [name, value] of header) {
      const [firstLine = '', ...rest] = wrap(value, 12);
      out(`  ${name.padEnd(10)}${firstLine.trimStart()}`);
      for (const line of rest) out(line);
    }

    const observer: RunObserver = {
      phaseStarted: (info) => {
        out('');
        out(formatPhase(info, style));
        out(messageHeader(style));
      },
      fate: (fate) => {
        for (const line of formatFate(fate, style)) out(line);
      },
      retry: (info) => {
        // A message retried all day would fill the screen: its first receives, then every 50th.
        if (info.receive <= 3 || info.receive % 50 === 0) out(formatRetry(info, style));
        else if (info.receive === 4) {
          out(style.dim(`  · ${info.correlationId} keeps failing: every 50th retry is shown`));
        }
      },
      note: (text) => {
        for (const line of wrap(`· ${text}`, 2)) out(style.dim(line));
      },
    };
    let result: RunResult;
    if (deployed !== undefined) {
      result = await runDeployedPipeline({
        scenario,
        settings,
        stack: deployed,
        account: deployed.account,
        observer,
      });
    } else if (backend !== undefined) {
      result = await runPipeline({
        scenario,
        settings,
        backend,
        simulator,
        logSink,
        faults,
        concurrentQueues: chaos !== undefined,
        observer,
        ...(options.outageMs === undefined ? {} : { outageMs: options.outageMs }),
      });
    } else {
      throw new Error('no backend was started');
    }

    out('');
    for (const line of formatSummary(result.fates, result.inProcessRetries, style)) out(line);
    const problems = deployed?.emulatorProblems() ?? [];
    if (result.fates.some((fate) => fate.kind === 'lost') && problems.length > 0) {
      out(style.warn("  MiniStack's last warnings and errors:"));
      for (const line of problems) out(style.dim(`    ${line.slice(0, LINE_WIDTH - 4)}`));
    }
    if (options.outageMs !== undefined) {
      const minutes = options.outageMs / 60_000;
      out('');
      out(
        `Outage of ${minutes >= 60 ? `${(minutes / 60).toFixed(1)} h` : `${minutes} min`}: ${counted(result.requestsDuringOutage, 'platform request')} while it lasted (${(result.requestsDuringOutage / minutes).toFixed(2)} per minute), the breakers let ${counted(result.probes, 'probe')} through (${counted(result.breakerOpenings, 'opening')}, counting each failed probe).`,
      );
    }
    out('');
    for (const line of formatPlatform(
      {
        state: simulator.state.snapshot(),
        stats: simulator.stats.snapshot(),
        secretReads: backend?.secretReads(),
        resultEvents: result.resultEvents,
        keyRotations: result.keyRotations,
      },
      style,
    )) {
      out(line);
    }
    out('');
    let converged: EntityVerdict[] | undefined;
    if (chaos !== undefined) {
      converged = await checkConvergence(given, simulator, settings, apiKey);
      for (const line of formatConvergence(converged, chaos, style)) out(line);
      out('');
    }
    const verdict = evaluateRun(result.fates, scenario.expectations, {
      faults,
      outage: options.outageMs !== undefined,
    });
    for (const line of formatVerdict(
      result.fates,
      verdict,
      scenario.expectations !== undefined,
      style,
    )) {
      out(line);
    }
    out(
      style.dim(
        deployed === undefined
          ? `Handler logs (Powertools JSON): ${relativeTo(root, logFile)}`
          : 'Function logs (Powertools JSON): in their log groups in MiniStack, gone with it when the run ends',
      ),
    );
    if (converged !== undefined) {
      const matched = converged.filter((entity) => entity.converged).length;
      const line = `Converged: ${matched}/${counted(converged.length, 'entity', 'entities')} match the events applied once each, in order`;
      out(matched === converged.length ? style.good(line) : style.bad(line));
      if (matched !== converged.length) return EXIT.failed;
    }
    return verdict.ok ? EXIT.ok : EXIT.failed;
  } finally {
    logSink?.close();
    await backend?.close();
    await deployed?.close();
    await simulator.close();
  }
};
