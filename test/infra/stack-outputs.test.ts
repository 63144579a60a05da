/**
 * The stack's output keys are the ones `lib/stack-outputs.ts` names, because the operator
 * commands (`npm run ops`) find each action's queues by those keys and docs/deploy.md's
 * queries find the log groups by them.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_NAMES, isReadAction } from '../../lambdas/actions';
import {
  actionOutputKeys,
  EVENT_BUS_OUTPUT_KEY,
  LEDGER_TABLE_OUTPUT_KEY,
} from '../../lib/stack-outputs';
import { configWith, ref, synth } from './synth';

describe('stack outputs', () => {
  it('has the queue URL, DLQ URL and log group of every enabled action under the shared keys', () => {
    // Prepare
    const config = configWith({ actions: { 'delete-user': { enabled: false } } });

    // Act
    const { stack, template } = synth(config);

    // Assess
    for (const action of ACTION_NAMES.filter((name) => name !== 'delete-user')) {
      const pipeline = stack.pipelines.get(action);
      if (pipeline === undefined) throw new Error(`no pipeline for ${action}`);
      const keys = actionOutputKeys(action);
      template.hasOutput(keys.queueUrl, { Value: ref(pipeline.queue) });
      template.hasOutput(keys.deadLetterQueueUrl, { Value: ref(pipeline.deadLetterQueue) });
      template.hasOutput(keys.logGroupName, { Value: ref(pipeline.logGroup) });
    }
    const outputKeys = Object.keys(template.findOutputs('*'));
    for (const key of Object.values(actionOutputKeys('delete-user'))) {
      expect(outputKeys).not.toContain(key);
    }
    template.hasOutput(EVENT_BUS_OUTPUT_KEY, { Value: ref(stack.eventBus) });
    if (stack.ledger === undefined) throw new Error('no ledger table');
    template.hasOutput(LEDGER_TABLE_OUTPUT_KEY, { Value: ref(stack.ledger.table) });
  });

  it('names no ledger table when only reads are enabled', () => {
    // Prepare
    const config = configWith({
      actions: Object.fromEntries(
        ACTION_NAMES.filter((a) => !isReadAction(a)).map((a) => [a, { enabled: false }]),
      ),
    });

    // Act
    const { template } = synth(config);

    // Assess
    expect(Object.keys(template.findOutputs('*'))).not.toContain(LEDGER_TABLE_OUTPUT_KEY);
  });
});
