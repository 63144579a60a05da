/** Cold-start baseline: a fresh process loads `@aws-sdk/client-secrets-manager` and nothing else. */
import { reportImport } from './report';

await reportImport(() => import('@aws-sdk/client-secrets-manager'));
