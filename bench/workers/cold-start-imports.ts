/**
 * Cold-start breakdown (not a baseline): a fresh process imports the packages the handler
 * bundle leaves external (the AWS SDK clients it imports), in the bundle's order, and nothing
 * else. The bundle's import time minus this is what zod, Powertools and our code cost.
 */
import type { ColdStartImportJob } from '../protocol';
import { readJob, reportImport } from './report';

const job = readJob<ColdStartImportJob>();

await reportImport(async () => {
  for (const module of job.modules) await import(module);
});
