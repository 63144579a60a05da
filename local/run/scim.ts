/**
 * `npm start -- --scim`: the SCIM endpoint on this machine. The runtime's `createScimHandler`
 * with in-memory ledger, brake and token, calling the simulator over a real socket, behind the
 * local API Gateway (`local/scim/proxy-server.ts`); then Entra ID's and Okta's sequences are
 * replayed against it over HTTP, each request printed with its status, and the platform checked
 * after each step. With `serve` it then keeps serving until interrupted.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DELETE_BRAKE_DEFAULTS, SCIM_DEFAULTS } from '../../lib/config';
import {
  entraIdSequence,
  type IdpSequence,
  oktaSequence,
  replaySequence,
  type StepOutcome,
} from '../scim/idp-sequences';
import { createLocalScimHandler, LOCAL_USER_TEMPLATE } from '../scim/local-scim-handler';
import { type ScimProxyServer, startScimProxyServer } from '../scim/proxy-server';
import { startSimulator } from '../simulator';
import type { Style } from './report';
import { EXIT, exampleRunSettings } from './run';
import { createRunMetrics, fileLogSink, RunLogger } from './run-logger';
import { runPlatformOf, runSimulatorOptions } from './run-settings';

export interface ScimRunOptions {
  readonly root: string;
  readonly out: (line: string) => void;
  readonly style: Style;
  /** Keep serving after the sequences until `stop` resolves (or SIGINT/SIGTERM). */
  readonly serve?: boolean;
  /** Resolves when a serving run should stop. @default SIGINT or SIGTERM */
  readonly stop?: Promise<void>;
  /** Port of the endpoint. @default any free one */
  readonly port?: number;
  /** @default <root>/.tools/local-run.log */
  readonly logFile?: string;
}

const untilSignal = (): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });

const stepLine = (outcome: StepOutcome, style: Style): string => {
  const { step, status, problems } = outcome;
  const mark = problems.length === 0 ? style.good('ok') : style.bad('✘ ');
  const request = `${step.method} ${decodeURIComponent(step.path)}`;
  return `  ${mark} ${String(status).padEnd(4)}${outcome.idp.padEnd(9)}${step.label.padEnd(32)}${request}${problems.length === 0 ? '' : style.bad(`  — ${problems.join('; ')}`)}`;
};

/** Runs the SCIM endpoint and both IdP sequences; the exit code of `npm start`. */
export const executeScimRun = async (options: ScimRunOptions): Promise<number> => {
  const { out, style } = options;
  const settings = exampleRunSettings(options.root, 'in-memory');
  const apiKey = randomBytes(24).toString('base64url');
  const token = randomBytes(32).toString('base64url');
  const simulator = await startSimulator(runSimulatorOptions(settings, apiKey));
  const logSink = fileLogSink(
    options.logFile ?? path.join(options.root, '.tools', 'local-run.log'),
  );
  let server: ScimProxyServer | undefined;
  try {
    const { handler, held } = createLocalScimHandler({
      platform: { ...runPlatformOf(settings), baseUrl: simulator.baseUrl },
      apiKey,
      token,
      // SCIM writes are add-user and delete-user events: their logs go with add-user's label.
      logger: new RunLogger({ action: 'add-user', sink: logSink }),
      metrics: createRunMetrics('add-user', logSink),
    });
    server = await startScimProxyServer(
      handler,
      options.port === undefined ? {} : { port: options.port },
    );

    out(style.bold('contact-center-sync: the SCIM 2.0 endpoint on this machine'));
    out(`  endpoint   ${server.baseUrl}`);
    out(`  token      ${token}   (Authorization: Bearer <token>)`);
    out(`  platform   simulator ${simulator.baseUrl}`);
    out(
      `  defaults   userTemplateName "${LOCAL_USER_TEMPLATE}", maxResults ${SCIM_DEFAULTS.maxResults}, delete-user's brake ${DELETE_BRAKE_DEFAULTS.limit} per ${DELETE_BRAKE_DEFAULTS.windowMinutes} min`,
    );
    out('');

    const onPlatform = (login: string) => simulator.state.findUser(login) !== undefined;
    const outcomes: StepOutcome[] = [];
    for (const sequence of [entraIdSequence(), oktaSequence()] satisfies IdpSequence[]) {
      out(style.bold(`${sequence.idp}: ${sequence.userName}`));
      const baseUrl = server.baseUrl;
      outcomes.push(
        ...(await replaySequence(sequence, {
          baseUrl,
          token,
          onPlatform,
          onStep: (outcome) => out(stepLine(outcome, style)),
        })),
      );
      out('');
    }

    const problems = outcomes.flatMap((o) =>
      o.problems.map((p) => `${o.idp} ${o.step.label}: ${p}`),
    );
    if (held.length > 0) problems.push(`${held.length} SCIM delete(s) held by the brake`);
    const users = simulator.state.listUsers().length;
    const summary = `${outcomes.length} requests (${entraIdSequence().steps.length} Entra ID, ${oktaSequence().steps.length} Okta), the platform checked after each; ${users} users on the platform at the end`;
    if (problems.length === 0) {
      out(style.good(style.bold('Result: OK')));
      out(`  ${summary}`);
    } else {
      out(
        style.bad(
          style.bold(
            `Result: FAILED — ${problems.length} problem${problems.length === 1 ? '' : 's'}`,
          ),
        ),
      );
      out(`  ${summary}`);
      for (const problem of problems) out(style.bad(`  ✘ ${problem}`));
    }
    if (options.serve) {
      out('');
      out(`Serving ${server.baseUrl} until interrupted (Ctrl+C).`);
      await (options.stop ?? untilSignal());
    }
    return problems.length === 0 ? EXIT.ok : EXIT.failed;
  } finally {
    await server?.close();
    await simulator.close();
    logSink.close();
  }
};
