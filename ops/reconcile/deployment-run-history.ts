import { DynamoDbRunHistory } from '../../lambdas/reconcile/dynamodb-run-history';
import { LEDGER_TABLE_OUTPUT_KEY } from '../../lib/stack-outputs';
import type { Deployment } from '../deployment';
import { requireOutput } from '../stack-outputs';

/** The deployment's ledger table and the run history kept in it, as plan and apply use them. */
export const deploymentRunHistory = async (deployment: Deployment) => {
  const tableName = requireOutput(
    await deployment.outputs(),
    LEDGER_TABLE_OUTPUT_KEY,
    'Reconciliation keeps its run history in the ledger table: is a write action enabled?',
  );
  return {
    tableName,
    history: new DynamoDbRunHistory({ tableName, client: deployment.dynamoDb() }),
  };
};
