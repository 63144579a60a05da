/**
 * Platform requests while the breakers are open: the local run's outage (`npm start --
 * --outage`) in virtual time, the example events through the real handlers, the platform
 * answering every request 503 for `outageMs`, then recovering.
 */
import path from 'node:path';
import { ACTION_NAMES, actionDefinition } from '../lambdas/actions';
import { InMemoryBackend } from '../local/backends/in-memory';
import { loadScenario } from '../local/run/event-input';
import { evaluateRun } from '../local/run/expectations';
import { runPipeline } from '../local/run/pipeline';
import { seedSimulator } from '../local/run/run';
import { discardLogSink } from '../local/run/run-logger';
import { loadRunSettings } from '../local/run/run-settings';
import { startSimulator } from '../local/simulator';
import { PROJECT_ROOT } from './paths';

export interface OutageResult {
  readonly outageMs: number;
  /** Platform services the example events call (each has its own breaker). */
  readonly services: number;
  readonly requestsDuringOutage: number;
  readonly probes: number;
  readonly messages: number;
  /** Messages that did not end as the example expects (none dead-lettered by the outage). */
  readonly unexpected: number;
  /**
   * Messages whose end differs only as `npm start -- --outage` allows: a request answered 5xx
   * may have been applied, so the call stays in doubt (docs/decisions.md).
   */
  readonly inDoubt: number;
}

const API_KEY = 'bench-outage-api-key';

export const measureOutage = async (outageMs: number): Promise<OutageResult> => {
  const settings = loadRunSettings(path.join(PROJECT_ROOT, 'config', 'example.json'));
  const scenario = loadScenario(path.join(PROJECT_ROOT, 'examples'), PROJECT_ROOT);
  const simulator = await startSimulator({ apiKey: API_KEY, ...settings.tenant, seed: 1 });
  try {
    seedSimulator(simulator, scenario);
    const result = await runPipeline({
      scenario,
      settings,
      backend: new InMemoryBackend(settings, API_KEY),
      simulator,
      logSink: discardLogSink,
      faults: false,
      outageMs,
    });
    const services = new Set(
      ACTION_NAMES.filter((action) => settings.actions[action].enabled).map(
        (action) => actionDefinition(action).service,
      ),
    );
    // Judged as `npm start -- --outage` judges the same run.
    const verdict = evaluateRun(result.fates, scenario.expectations, {
      faults: false,
      outage: true,
    });
    return {
      outageMs,
      services: services.size,
      requestsDuringOutage: result.requestsDuringOutage,
      probes: result.probes,
      messages: result.fates.length,
      unexpected: verdict.problems.length,
      inDoubt: verdict.warnings.length,
    };
  } finally {
    await simulator.close();
  }
};
