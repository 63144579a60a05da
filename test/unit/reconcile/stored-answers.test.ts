/**
 * The answers a long plan keeps between invocations are parsed when read back: the first shape
 * (the bare map of answers by loginUserId) still reads, and a damaged file is refused with the
 * field that is wrong rather than taken for answers the platform never gave.
 */
import { describe, expect, it } from 'vitest';
import type { UserExistenceResult } from '../../../lambdas/actions';
import {
  parseAnswers,
  STORED_ANSWERS_VERSION,
  serializeAnswers,
} from '../../../lambdas/reconcile/stored-answers';

const THERE: UserExistenceResult = {
  status: 'SUCCESS',
  exists: true,
  cloudConnectStatus: 'EXISTS',
  connectUserId: 'c-1',
};
const GONE: UserExistenceResult = {
  status: 'NOT_FOUND',
  exists: false,
  cloudConnectStatus: null,
  connectUserId: null,
};
const WHERE = 's3://bucket/runs/answers/run-1.json';

describe('kept answers', () => {
  it.each([
    ['some users', { 'ada@example.com': THERE, 'bo@example.com': GONE }],
    ['a user whose loginUserId is "version"', { version: THERE }],
    ['none', {}],
  ])('reads the first shape with %s, and writes them versioned', (_name, users) => {
    // Prepare: the first shape was JSON.stringify of the map
    const first = JSON.stringify(users);

    // Act
    const read = parseAnswers(first, WHERE);
    const written = serializeAnswers(read);

    // Assess
    expect(read).toEqual(users);
    expect(JSON.parse(written)).toEqual({ version: STORED_ANSWERS_VERSION, users });
    expect(parseAnswers(written, WHERE)).toEqual(users);
  });

  it.each([
    ['not JSON', '{"a', 'not JSON'],
    ['an answer without exists', JSON.stringify({ ada: { ...GONE, exists: 'no' } }), 'ada.exists'],
    ['a newer version', JSON.stringify({ version: 2, users: {} }), 'version'],
    [
      'a versioned file with a wrong status',
      JSON.stringify({ version: 1, users: { ada: { ...THERE, status: 'OK' } } }),
      'users.ada.status',
    ],
  ])('refuses %s, naming the file and the field', (_name, text, field) => {
    // Act
    const read = () => parseAnswers(text, WHERE);

    // Assess
    expect(read).toThrow(field);
    expect(read).toThrow(WHERE);
  });
});
