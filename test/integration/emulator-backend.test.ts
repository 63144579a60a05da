/**
 * The `--aws-emulator` backend against the shared moto server: rules route by source and
 * detail-type, and a message the handler never settles is moved to the DLQ by the redrive
 * policy without a reason, where the run finds it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EmulatorBackend } from '../../local/backends/aws-emulator';
import { toDeliveredEvent } from '../../local/run/delivered-event';
import type { InputEvent } from '../../local/run/event-input';
import { runSettingsFrom } from '../../local/run/run-settings';
import { motoEndpoint } from '../support/aws-clients';
import { deadLetterReason } from '../support/dead-letter-reason';

let backend: EmulatorBackend | undefined;
/** `create` points the SDK environment at the emulator; each test gets the original back. */
const originalEnv = { ...process.env };

afterEach(async () => {
  await backend?.close();
  backend = undefined;
  for (const name of Object.keys(process.env)) {
    if (!(name in originalEnv)) delete process.env[name];
  }
  Object.assign(process.env, originalEnv);
});

const input = (source: string, detailType: string, correlationId: string): InputEvent => ({
  file: 'test.json',
  index: 0,
  format: 'eventbridge',
  source,
  detailType,
  detail: { correlationId },
  envelope: {},
});

const deliver = (event: InputEvent) =>
  toDeliveredEvent(event, { region: 'us-east-1', account: '123456789012', now: Date.now });

describe('EmulatorBackend', () => {
  it('delivers only events whose source the action rule allows, as the EventBridge event', async () => {
    // Prepare
    const settings = runSettingsFrom({ allowedSources: ['hr'] }, 'test');
    backend = await EmulatorBackend.create({ endpoint: motoEndpoint(), settings, apiKey: 'k-1' });

    // Act
    const ids = await backend.putEvents([
      deliver(input('hr', 'add-user', 'routed')),
      deliver(input('crm', 'add-user', 'wrong-source')),
    ]);
    const records = await backend.receive('add-user', 10);

    // Assess
    expect(records).toHaveLength(1);
    expect(JSON.parse(records[0]?.body ?? '{}')).toMatchObject({
      id: ids[0],
      source: 'hr',
      'detail-type': 'add-user',
      detail: { correlationId: 'routed' },
    });
    expect(records[0]?.attributes.ApproximateReceiveCount).toBe('1');
  });

  it('finds a message the redrive policy moved, without reason attributes', async () => {
    // Prepare
    const settings = runSettingsFrom(
      { allowedSources: ['hr'], actions: { 'delete-user': { maxReceiveCount: 1 } } },
      'test',
    );
    backend = await EmulatorBackend.create({ endpoint: motoEndpoint(), settings, apiKey: 'k-1' });
    await backend.putEvents([deliver(input('hr', 'delete-user', 'poison'))]);
    await backend.receive('delete-user', 10);

    // Act
    await backend.waitForRedelivery();
    const again = await backend.receive('delete-user', 10);
    const letters = await backend.deadLetters();

    // Assess
    expect(again).toEqual([]);
    expect(letters).toEqual([{ action: 'delete-user', body: expect.stringContaining('"poison"') }]);
    expect(await backend.pending()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('finds a dead letter the handler sent with its reason, and leaves it in the DLQ', async () => {
    // Prepare
    const settings = runSettingsFrom({ allowedSources: ['hr'] }, 'test');
    backend = await EmulatorBackend.create({ endpoint: motoEndpoint(), settings, apiKey: 'k-1' });
    const reason = deadLetterReason({ correlationId: 'c-1' });
    await backend.deadLetterSink('add-user').send('{"correlationId":"c-1"}', reason);

    // Act
    const first = await backend.deadLetters();
    const second = await backend.deadLetters();

    // Assess
    expect(first).toEqual([{ action: 'add-user', body: '{"correlationId":"c-1"}', reason }]);
    expect(second).toEqual(first);
  });
});
