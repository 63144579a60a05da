/** Cold-start baseline: a fresh process loads `@aws-sdk/client-secrets-manager` and nothing else. */
import type { ColdStartResult } from '../protocol';
import { report } from './report';

const started = performance.now();
await import('@aws-sdk/client-secrets-manager');
const loaded = performance.now();

report({
  bootMs: started,
  totalMs: loaded - started,
  importMs: loaded - started,
  invokeMs: 0,
  failures: 0,
} satisfies ColdStartResult);
