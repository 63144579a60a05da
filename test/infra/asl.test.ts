/**
 * The reconcile state machine's definition, as synthesized, validated with the AWS ASL language
 * service (the validator of the Step Functions tooling): cfn-lint passes ASL mistakes that only
 * show up when an execution reaches them. The seeded copies prove the validator sees each kind.
 */
import asl from 'amazon-states-language-service';
import { describe, expect, it } from 'vitest';
import { configWith, synth } from './synth';

// A CommonJS package whose re-exports Node's ESM loader cannot name one by one.
const { getLanguageService, TextDocument } = asl;

type Definition = {
  States: Record<string, Record<string, unknown>>;
} & Record<string, unknown>;

const scopes = { leads: { kind: 'records', campaigns: ['Spring'], apply: 'auto' } } as const;
const { template } = synth(configWith({ reconcile: { scopes } }));

/** The definition with its tokens resolved to placeholders (ARNs, names: strings only). */
const definition = (): Definition => {
  const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
  const body = (machine as { Properties: { DefinitionString: unknown } }).Properties
    .DefinitionString;
  const parts = (body as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  const placeholder = (part: unknown): string =>
    JSON.stringify(part) === '{"Ref":"AWS::Partition"}' ? 'aws' : 'TOKEN';
  return JSON.parse(parts.map((p) => (typeof p === 'string' ? p : placeholder(p))).join(''));
};

const service = getLanguageService({});

/** The language service's errors and warnings about a definition. */
const problems = async (asJson: Definition): Promise<string[]> => {
  const document = TextDocument.create('file:///run.asl.json', 'json', 1, JSON.stringify(asJson));
  const diagnostics = await service.doValidation(document, service.parseJSONDocument(document));
  return diagnostics.map((d) => (typeof d.message === 'string' ? d.message : d.message.value));
};

const state = (def: Definition, name: string): Record<string, unknown> => {
  const found = def.States[name];
  if (found === undefined) throw new Error(`no state ${name} in the definition`);
  return found;
};

const seeded: ReadonlyArray<[string, (def: Definition) => void, RegExp]> = [
  [
    'an item reader InputType it does not know',
    (def) => {
      const reader = state(def, 'SendRepairs').ItemReader as {
        ReaderConfig: { InputType: string };
      };
      reader.ReaderConfig.InputType = 'JSONLINES';
    },
    /InputType|JSONL/,
  ],
  [
    'a Choice that goes to a state that does not exist',
    (def) => {
      const choices = state(def, 'WhatNext').Choices as Array<{ Next: string }>;
      (choices[1] as { Next: string }).Next = 'SendRepair';
    },
    /Next.*existing state/,
  ],
  [
    'a parameter path without its $',
    (def) => {
      (state(def, 'Plan').Parameters as Record<string, unknown>)['key.$'] = 'detail.object.key';
    },
    /valid JSONPath/,
  ],
];

describe('the reconcile state machine definition', () => {
  it('is valid ASL', async () => {
    // Act
    const found = await problems(definition());

    // Assess
    expect(found).toEqual([]);
  });

  it.each(seeded)('with %s seeded, is refused', async (_fault, seed, expected) => {
    // Prepare
    const copy = definition();
    seed(copy);

    // Act
    const found = await problems(copy);

    // Assess
    expect(found.join('\n')).toMatch(expected);
  });
});
