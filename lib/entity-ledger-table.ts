/**
 * The entity ledger: one DynamoDB table per deployment, where the handlers keep each entity's
 * events (with their values: record data, user names), what they know of the platform, and the
 * leases; encrypted with the AWS-managed key, items expire (`expiresAt`).
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/** The only item operations the handlers use: a conditional claim, a commit and a read. */
export const LEDGER_ITEM_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
] as const;

export interface EntityLedgerTableProps {
  /**
   * What happens to the table when the stack is deleted. Losing it loses ordering history, not
   * platform state, so a test stack may destroy it.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

export class EntityLedgerTable extends Construct {
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: EntityLedgerTableProps = {}) {
    super(scope, id);
    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      billing: dynamodb.Billing.onDemand(),
      encryption: dynamodb.TableEncryptionV2.awsManagedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Tombstones and old history go by themselves (epoch seconds set by the handlers).
      timeToLiveAttribute: 'expiresAt',
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
  }

  /** Lets a handler's role claim, commit and read items (`LEDGER_ITEM_ACTIONS`), and no more. */
  grantItems(role: iam.IRole): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'EntityLedger',
        actions: [...LEDGER_ITEM_ACTIONS],
        resources: [this.table.tableArn],
      }),
    );
  }
}
