/**
 * Cold-start breakdown (not a baseline): a fresh process imports the packages the handler
 * bundle leaves external (the AWS SDK clients it imports), in the bundle's order, and nothing
 * else. The bundle's import time minus this is what zod, Powertools and our code cost.
 */
import type { ColdStartImportJob, ColdStartResult } from '../protocol';
import { readJob, report } from './report';

const job = readJob<ColdStartImportJob>();

const started = performance.now();
for (const module of job.modules) await import(module);
const loaded = performance.now();

report({
  bootMs: started,
  totalMs: loaded - started,
  importMs: loaded - started,
  invokeMs: 0,
  failures: 0,
} satisfies ColdStartResult);
