import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { SyncError } from '../../lambdas/core/errors';

/**
 * Reads the events a run feeds in: a file, or a folder whose event files run one after the
 * other ("phases"). Two formats per event, mixed freely:
 *
 * - an EventBridge event as EventBridge delivers it: `{ "source", "detail-type", "detail": {…} }`
 *   (`id`, `time`, … are filled in when absent);
 * - a PutEvents request entry: `{ "Source", "DetailType", "Detail": "<JSON string>" }`.
 *
 * A `.json` file holds an array of events (or one event); a `.jsonl` file one event per line.
 * A folder may also hold `seed.json` (platform state before the run) and
 * `expected-outcomes.json` (correlation id → expected outcome code).
 */

export const SEED_FILE = 'seed.json';
export const EXPECTATIONS_FILE = 'expected-outcomes.json';
const EVENT_FILE = /\.jsonl?$/;

export interface InputEvent {
  /** File the event came from, as shown to the user. */
  readonly file: string;
  /** 0-based position in its file. */
  readonly index: number;
  readonly format: 'eventbridge' | 'put-events';
  readonly source: string;
  readonly detailType: string;
  /** The decoded detail (always a JSON object). */
  readonly detail: Readonly<Record<string, unknown>>;
  /** Envelope fields given in the file (`id`, `time`, `account`, …), kept as given. */
  readonly envelope: Readonly<Record<string, unknown>>;
}

export interface Phase {
  readonly file: string;
  readonly events: readonly InputEvent[];
}

/** A user that exists on the platform before the run (e.g. created by hand). */
const seedUserSchema = z.strictObject({
  loginUserId: z.string().min(1),
  firstName: z.string().min(1),
  lastName: z.string().min(1),
  userTemplateName: z.string().min(1),
  primaryEmailAddr: z.email().optional(),
  inCloudConnect: z.boolean().optional(),
});

export type SeedUser = Readonly<z.infer<typeof seedUserSchema>>;

export interface Seed {
  readonly users: readonly SeedUser[];
}

export interface Scenario {
  /** The file or folder given, as shown to the user. */
  readonly origin: string;
  readonly phases: readonly Phase[];
  readonly seed: Seed;
  /** correlation id → expected outcome code; undefined when the scenario has none. */
  readonly expectations: ReadonlyMap<string, string> | undefined;
  /** The expectations file, as shown to the user. */
  readonly expectationsOrigin?: string;
}

/**
 * The input cannot be run. Every problem found is listed, each naming its file and index
 * (JSON) or line (JSONL), so that one edit fixes them all; nothing runs until then.
 */
export class EventInputError extends SyncError<'EVENT_INPUT_INVALID'> {
  override readonly name = 'EventInputError';
  readonly code = 'EVENT_INPUT_INVALID';
  readonly category = 'usage';
  readonly problems: readonly string[];

  /** `scope` (the file or folder given) heads the message when there are several problems. */
  constructor(problems: string | readonly string[], scope?: string) {
    const list = typeof problems === 'string' ? [problems] : problems;
    super(
      list.length === 1
        ? (list[0] ?? '')
        : `${scope ?? 'events'}: ${list.length} bad entries, nothing was run:\n  ${list.join('\n  ')}`,
    );
    this.problems = list;
  }
}

/** Runs `read`; an input problem is added to `problems` instead of thrown. */
const collecting = <T>(problems: string[], read: () => T): T | undefined => {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof EventInputError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const EVENTBRIDGE_KEYS = ['source', 'detail-type', 'detail'];
const PUT_EVENTS_KEYS = ['Source', 'DetailType', 'Detail'];

/** One element of an event file → an `InputEvent`; throws `EventInputError` naming `where`. */
export const toInputEvent = (
  value: unknown,
  file: string,
  index: number,
  where = `${file}[${index}]`,
): InputEvent => {
  if (!isRecord(value)) throw new EventInputError(`${where}: an event must be a JSON object`);
  if (EVENTBRIDGE_KEYS.some((key) => key in value)) {
    const { source, 'detail-type': detailType, detail, ...envelope } = value;
    if (typeof source !== 'string' || source === '') {
      throw new EventInputError(`${where}: "source" must be a non-empty string`);
    }
    if (typeof detailType !== 'string' || detailType === '') {
      throw new EventInputError(`${where}: "detail-type" must be a non-empty string`);
    }
    if (!isRecord(detail)) {
      throw new EventInputError(
        `${where}: "detail" must be a JSON object (EventBridge requires one)`,
      );
    }
    return { file, index, format: 'eventbridge', source, detailType, detail, envelope };
  }
  if (PUT_EVENTS_KEYS.some((key) => key in value)) {
    const { Source: source, DetailType: detailType, Detail: detailText } = value;
    if (typeof source !== 'string' || source === '') {
      throw new EventInputError(`${where}: "Source" must be a non-empty string`);
    }
    if (typeof detailType !== 'string' || detailType === '') {
      throw new EventInputError(`${where}: "DetailType" must be a non-empty string`);
    }
    if (typeof detailText !== 'string') {
      throw new EventInputError(`${where}: "Detail" must be a string holding a JSON object`);
    }
    let detail: unknown;
    try {
      detail = JSON.parse(detailText);
    } catch {
      // PutEvents rejects such an entry (MalformedDetail); it never reaches a rule.
      throw new EventInputError(`${where}: "Detail" is not valid JSON (PutEvents would reject it)`);
    }
    if (!isRecord(detail)) {
      throw new EventInputError(`${where}: "Detail" must hold a JSON object`);
    }
    return { file, index, format: 'put-events', source, detailType, detail, envelope: {} };
  }
  throw new EventInputError(
    `${where}: neither an EventBridge event {"source", "detail-type", "detail"} nor a PutEvents entry {"Source", "DetailType", "Detail"}`,
  );
};

const readJson = (file: string, shown: string): unknown => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new EventInputError(`${shown}: not valid JSON (${(error as Error).message})`);
  }
};

/**
 * The events of one `.json` (array or single event) or `.jsonl` file. Every bad entry is
 * reported at once, each with its index (JSON) or line (JSONL), so one edit fixes them all.
 */
export const readEventFile = (file: string, shown: string): InputEvent[] => {
  const events: InputEvent[] = [];
  const problems: string[] = [];
  const take = (value: unknown, where: string): void => {
    const event = collecting(problems, () => toInputEvent(value, shown, events.length, where));
    if (event) events.push(event);
  };
  if (file.endsWith('.jsonl')) {
    readFileSync(file, 'utf8')
      .split(/\r?\n/)
      .forEach((line, lineIndex) => {
        if (line.trim() === '') return;
        const where = `${shown}:${lineIndex + 1}`;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch (error) {
          problems.push(`${where}: not valid JSON (${(error as Error).message})`);
          return;
        }
        take(value, where);
      });
  } else {
    const content = readJson(file, shown);
    const list = Array.isArray(content) ? content : [content];
    for (const [index, value] of list.entries()) take(value, `${shown}[${index}]`);
  }
  if (problems.length > 0) throw new EventInputError(problems, shown);
  return events;
};

const seedSchema = z.strictObject({ users: z.array(seedUserSchema).default([]) });

export const readSeed = (file: string, shown: string): Seed => {
  const parsed = seedSchema.safeParse(readJson(file, shown));
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.join('.') || '(seed)'}: ${i.message}`,
    );
    throw new EventInputError(`${shown}: ${problems.join('; ')}`);
  }
  return parsed.data;
};

/** `{ "<correlationId>": "<OUTCOME_CODE>" }`; keys starting with `$` are comments. */
export const readExpectations = (file: string, shown: string): Map<string, string> => {
  const content = readJson(file, shown);
  if (!isRecord(content)) {
    throw new EventInputError(`${shown}: must be an object of correlation id → outcome code`);
  }
  const expectations = new Map<string, string>();
  const problems: string[] = [];
  for (const [key, value] of Object.entries(content)) {
    if (key.startsWith('$')) continue;
    if (typeof value !== 'string' || value === '') {
      problems.push(`${shown}: the outcome of "${key}" must be a code such as SUCCESS`);
    } else {
      expectations.set(key, value);
    }
  }
  if (problems.length > 0) throw new EventInputError(problems, shown);
  return expectations;
};

/**
 * Loads a file (one phase, no seed, no expectations) or a folder (one phase per event file,
 * in name order, plus its seed and expectations when present).
 */
export const loadScenario = (target: string, cwd: string = process.cwd()): Scenario => {
  const absolute = path.resolve(cwd, target);
  const shown = (file: string): string => {
    const relative = path.relative(cwd, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  };
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(absolute);
  } catch {
    throw new EventInputError(`${target}: no such file or folder`);
  }
  if (!stats.isDirectory()) {
    const events = readEventFile(absolute, shown(absolute));
    return {
      origin: shown(absolute),
      phases: [{ file: shown(absolute), events }],
      seed: { users: [] },
      expectations: undefined,
    };
  }
  const names = readdirSync(absolute)
    .filter((name) => EVENT_FILE.test(name) && name !== SEED_FILE && name !== EXPECTATIONS_FILE)
    .sort();
  if (names.length === 0) {
    throw new EventInputError(`${shown(absolute)}: no event files (*.json, *.jsonl) in the folder`);
  }
  // Every file is read before anything is reported, so all their problems come at once.
  const problems: string[] = [];
  const phases = names.map((name) => {
    const file = path.join(absolute, name);
    return {
      file: shown(file),
      events: collecting(problems, () => readEventFile(file, shown(file))),
    };
  });
  const seedFile = path.join(absolute, SEED_FILE);
  const expectationsFile = path.join(absolute, EXPECTATIONS_FILE);
  const exists = (file: string): boolean => {
    try {
      return statSync(file).isFile();
    } catch {
      return false;
    }
  };
  const seed = exists(seedFile)
    ? collecting(problems, () => readSeed(seedFile, shown(seedFile)))
    : { users: [] };
  const expectations = exists(expectationsFile)
    ? collecting(problems, () => readExpectations(expectationsFile, shown(expectationsFile)))
    : undefined;
  if (problems.length > 0) throw new EventInputError(problems, shown(absolute));
  return {
    origin: shown(absolute),
    phases: phases.map((phase) => ({ file: phase.file, events: phase.events ?? [] })),
    seed: seed ?? { users: [] },
    ...(expectations
      ? { expectations, expectationsOrigin: shown(expectationsFile) }
      : { expectations: undefined }),
  };
};
