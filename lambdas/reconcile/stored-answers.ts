/**
 * The answers a long plan keeps between the invocations of its run (`runs/answers/<run>.json`):
 * each user's query-existence answer, parsed when the next invocation reads them. The first
 * shape was the bare map of answers by loginUserId; it still reads.
 */
import * as z from 'zod/mini';
import type { UserExistenceResult } from '../actions';
import { formatIssues } from '../messages/parse';

export const STORED_ANSWERS_VERSION = 1;

const existence = z.object({
  status: z.enum(['SUCCESS', 'NOT_FOUND']),
  exists: z.boolean(),
  cloudConnectStatus: z.nullable(z.enum(['EXISTS', 'NOT_FOUND'])),
  connectUserId: z.nullable(z.string()),
}) satisfies z.ZodMiniType<UserExistenceResult>;

const users = z.record(z.string(), existence);

const versioned = z.object({
  version: z.literal(STORED_ANSWERS_VERSION, `must be ${STORED_ANSWERS_VERSION}`),
  users,
});

/** The first shape is the map alone (where a loginUserId "version" maps to an answer, not a number). */
const isVersioned = (raw: unknown): boolean =>
  typeof raw === 'object' &&
  raw !== null &&
  typeof (raw as { version?: unknown }).version === 'number';

export const serializeAnswers = (answers: Readonly<Record<string, UserExistenceResult>>): string =>
  JSON.stringify({ version: STORED_ANSWERS_VERSION, users: answers });

/** The users' answers a file holds; `where` names it in the error when it does not parse. */
export const parseAnswers = (text: string, where: string): Record<string, UserExistenceResult> => {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`the kept answers ${where} are not JSON: delete them to read again`);
  }
  const parsed = isVersioned(raw)
    ? z.safeParse(
        z.pipe(
          versioned,
          z.transform((file) => file.users),
        ),
        raw,
        { reportInput: true },
      )
    : z.safeParse(users, raw, { reportInput: true });
  if (!parsed.success) {
    throw new Error(
      `the kept answers ${where} do not parse (${formatIssues(parsed.error.issues)}): delete them to read again`,
    );
  }
  return parsed.data;
};
