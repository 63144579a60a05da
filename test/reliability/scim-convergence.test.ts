/**
 * SCIM and the queues on one user: random interleavings of an IdP's requests (create,
 * deactivate, reactivate, PUT, delete) and add-user/delete-user messages through the real queue
 * handler, the messages arriving late, must leave the platform as the in-order model does: every
 * event applied once, in occurredAt order (a SCIM request's event at the time it was received).
 * CI runs SCIM_CONVERGENCE_RUNS (default 40) histories; a soak sets it higher.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EntityLedger } from '../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../lambdas/core/ledger/in-memory-ledger-store';
import { PlatformCaller } from '../../lambdas/core/platform/platform-caller';
import { createScimHandler } from '../../lambdas/scim/scim-handler';
import { inMemoryProfileLister } from '../../lambdas/scim/scim-profiles';
import { applyInOrder, type ModelEvent } from '../../local/convergence/model';
import { callScim, InMemoryApiKeySource } from '../../testkit';
import { propertySeed, sizeFromEnv } from '../support/size-from-env';
import {
  API_KEY,
  divergence,
  fasterWaits,
  quietly,
  simulatorsForFile,
} from './convergence/convergence-check';
import { FAST_HTTP, fakeContext, settingsFor, sqsRecord, testHandler } from './support/harness';

const RUNS = sizeFromEnv('SCIM_CONVERGENCE_RUNS', 40);
const { simulators, stats } = simulatorsForFile('SCIM and queue convergence');

const LOGIN = 'pat@example.com';
const TOKEN = 'scim-convergence-token';
const T0 = Date.parse('2026-11-28T09:00:00Z');
const fields = { firstName: 'Pat', lastName: 'Doe', userTemplateName: 'Agent' };

/** One step of a history: the IdP acts at its time, a queue message arrives `late` steps after. */
type Step =
  | { readonly kind: 'idp'; readonly choice: 'patch' | 'put' | 'delete' }
  | { readonly kind: 'queue'; readonly action: 'add-user' | 'delete-user'; readonly late: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('idp' as const),
    choice: fc.constantFrom('patch' as const, 'put' as const, 'delete' as const),
  }),
  fc.record({
    kind: fc.constant('queue' as const),
    action: fc.constantFrom('add-user' as const, 'delete-user' as const),
    late: fc.nat({ max: 6 }),
  }),
);

const occurredAt = (index: number) => new Date(T0 + index * 1000).toISOString();

describe('SCIM requests and queue events for one user', () => {
  it('end in the in-order model state, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 12 }), async (steps) => {
        const platforms = simulators();
        platforms.actual.reset();
        platforms.expected.reset();
        const store = new InMemoryLedgerStore();
        const ledger = new EntityLedger({ store, sleep: fasterWaits });
        const queue = {
          'add-user': testHandler('add-user', {
            baseUrl: platforms.actual.baseUrl,
            apiKey: new InMemoryApiKeySource(API_KEY),
            ledger,
          }),
          'delete-user': testHandler('delete-user', {
            baseUrl: platforms.actual.baseUrl,
            apiKey: new InMemoryApiKeySource(API_KEY),
            ledger,
          }),
        };
        const scim = createScimHandler({
          platform: new PlatformCaller(
            settingsFor(platforms.actual.baseUrl),
            new InMemoryApiKeySource(API_KEY),
            FAST_HTTP,
          ),
          ledgerStore: store,
          listProfiles: inMemoryProfileLister(store),
          tokens: new InMemoryApiKeySource(TOKEN),
          defaults: { userTemplateName: 'Agent', createInCloudConnect: false },
          maxResults: 100,
          logger: new Logger({ serviceName: 'scim', logLevel: 'SILENT' }),
          metrics: new Metrics({ namespace: 'Test', serviceName: 'scim' }),
          sleep: fasterWaits,
        });

        // The IdP's view decides its next request: create, then flip active (PATCH or PUT), or delete.
        let resource: { id: string; active: boolean } | undefined;
        const events: ModelEvent[] = [];
        const answers: number[] = [];
        const idpRequest = async (index: number, choice: 'patch' | 'put' | 'delete') => {
          const send = async (method: string, path: string, body?: unknown) => {
            const answer = await callScim(scim, {
              method,
              path,
              token: TOKEN,
              body,
              requestTimeEpoch: T0 + index * 1000,
            });
            answers.push(answer.status);
            return answer.body;
          };
          const user = (active: boolean) => ({
            schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
            userName: LOGIN,
            name: { givenName: fields.firstName, familyName: fields.lastName },
            active,
          });
          const leave = {
            action: 'delete-user',
            message: { occurredAt: occurredAt(index), loginUserId: LOGIN },
          };
          const join = {
            action: 'add-user',
            message: { occurredAt: occurredAt(index), loginUserId: LOGIN, ...fields },
          };
          if (resource === undefined) {
            resource = { id: (await send('POST', 'Users', user(true))).id, active: true };
            events.push(join);
          } else if (choice === 'delete') {
            await send('DELETE', `Users/${resource.id}`);
            resource = undefined;
            events.push(leave);
          } else {
            const active = !resource.active;
            await (choice === 'put'
              ? send('PUT', `Users/${resource.id}`, user(active))
              : send('PATCH', `Users/${resource.id}`, {
                  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
                  Operations: [{ op: 'Replace', path: 'active', value: active ? 'True' : 'False' }],
                }));
            resource = { ...resource, active };
            events.push(active ? join : leave);
          }
        };

        // Each step at its own time; a queue message is delivered `late` steps afterwards.
        const order = steps
          .map((step, index) => ({
            step,
            index,
            at: step.kind === 'idp' ? index : index + step.late + 0.5,
          }))
          .sort((a, b) => a.at - b.at);
        const queueEvents = steps.flatMap((step, index) =>
          step.kind === 'queue'
            ? [
                {
                  action: step.action,
                  message:
                    step.action === 'add-user'
                      ? { occurredAt: occurredAt(index), loginUserId: LOGIN, ...fields }
                      : { occurredAt: occurredAt(index), loginUserId: LOGIN },
                },
              ]
            : [],
        );
        await quietly(async () => {
          for (const { step, index } of order) {
            if (step.kind === 'idp') {
              await idpRequest(index, step.choice);
              continue;
            }
            const message =
              step.action === 'add-user'
                ? { occurredAt: occurredAt(index), loginUserId: LOGIN, ...fields }
                : { occurredAt: occurredAt(index), loginUserId: LOGIN };
            stats.messages += 1;
            await queue[step.action](
              { Records: [sqsRecord({ messageId: `m-${index}`, body: JSON.stringify(message) })] },
              fakeContext(),
            );
          }
        });

        const all = [...events, ...queueEvents];
        await applyInOrder(
          all,
          platforms.expected,
          settingsFor(platforms.expected.baseUrl),
          API_KEY,
        );
        stats.entities += 1;
        expect(answers.every((status) => status >= 200 && status < 300)).toBe(true);
        expect(divergence(platforms, all)).toEqual([]);
      }),
      {
        numRuns: RUNS,
        seed: propertySeed(20261128, 'SCIM_CONVERGENCE_SEED'),
        endOnFailure: true,
      },
    );
  });
});
