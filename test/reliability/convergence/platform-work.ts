/**
 * One run of the platform-work property: a day is delivered (but for some of its status
 * changes, held back); then agents complete some of its records on the platform, and newer
 * data-only updates arrive together with the held-back status changes, met for the first time,
 * and a redrive of some of the day's old messages (new message ids, the same bodies). The
 * platform must end as the model of all events with that work in between: the work stays (no
 * older event undoes it, however late it arrives, nor a newer one that does not set the state)
 * and the new data lands. The platform is checked against the model between the day and the
 * work only when no status change was held back: with some held, the platform has not yet
 * seen them while the model has the whole day, so only the end is compared.
 */
import { expect } from 'vitest';
import { eventsOf } from '../../../local/convergence/histories';
import type { ModelEvent } from '../../../local/convergence/model';
import type { RunningSimulator } from '../../../local/simulator';
import {
  countRun,
  expectConverged,
  expectDeliveredSoundly,
  type HistoryRun,
  openRun,
  quietly,
} from './convergence-check';

const AGENT = 'agent.c@example.com';
const WORK_CODES = [{ key: 'Outcome', value: 'Sale' }] as const;
const MINUTE = 60_000;

interface Place {
  readonly campaignName: string;
  readonly clientId: string;
}

/** What an agent's attempt leaves on a record, which no event of ours may take back. */
const workOn = (platform: RunningSimulator, place: Place) => {
  const record = platform.state.findByClientId(place.campaignName, place.clientId);
  return {
    workedState: record?.workedState,
    workAttempts: record?.workAttempts,
    lastAttemptAgent: record?.lastAttemptAgent,
    lastAttemptTime: record?.lastAttemptTime,
    workCodes: record?.workCodes,
  };
};

const newestOf = (events: readonly ModelEvent[]): number =>
  Math.max(...events.map((e) => Date.parse((e.message as { occurredAt: string }).occurredAt)));

const dataOnlyUpdate = (place: Place, atMs: number, n: number) => ({
  action: 'add-or-update-campaign-record',
  message: {
    correlationId: `later-${place.clientId}-${n}`,
    occurredAt: new Date(atMs).toISOString(),
    campaignName: place.campaignName,
    clientId: place.clientId,
    previewRecordData: [{ key: 'Name', value: `Lead ${place.clientId} later ${n}` }],
  },
});

export const platformWorkRun: HistoryRun = async (
  platforms,
  ledger,
  history,
  seed,
  stats,
  options = {},
) => {
  // Prepare: the day, delivered and converged; then agents complete some of its records, on
  // the platform and in the model alike
  const { actual, expected } = platforms;
  const run = openRun(platforms, ledger, seed, options);
  const day = eventsOf(history);
  // Status changes held back: they reach the ledger for the first time only after the agents'
  // work (a long backoff, a redrive), though they happened before it.
  const held = day.filter(
    (e) => e.action === 'change-campaign-record-status' && run.random() < 0.3,
  );
  const onTime = day.filter((e) => !held.includes(e));
  const delivered = await quietly(() => run.deliver(run.arranged(onTime), `day-${seed}`));
  await run.model(day);
  expectDeliveredSoundly([delivered.result], delivered.output);
  if (held.length === 0) expectConverged(platforms, day, 'after the day, before any work');
  const present: Place[] = expected.state
    .listCampaigns()
    .flatMap((campaign) => expected.state.listRecords(campaign))
    .map(({ campaignName, clientId }) => ({ campaignName, clientId }));
  const worked = present.filter(() => run.random() < 0.5);
  const workedAt = newestOf(day) + 10 * MINUTE;
  for (const place of worked) {
    for (const platform of [actual, expected]) {
      platform.state.recordAttempt(place.campaignName, place, {
        agent: AGENT,
        at: workedAt,
        workedState: 'COMPLETED',
        workCodes: WORK_CODES,
      });
    }
  }
  const work = worked.map((place) => ({ place, left: workOn(actual, place) }));
  const updates = present
    .filter(() => run.random() < 0.6)
    .map((place, n) => dataOnlyUpdate(place, workedAt + 10 * MINUTE + n * 1000, n));
  const redriven = day.filter(() => run.random() < 0.3);

  // Act: the held-back status changes, the newer updates and the old messages, as one more
  // part of the day
  const later = await quietly(() =>
    run.deliver(run.arranged([...held, ...redriven, ...updates]), `later-${seed}`),
  );
  await run.model(updates);

  // Assess: the model of every event, the work on top; the work stayed and the new data landed
  expectDeliveredSoundly([later.result], later.output);
  expectConverged(platforms, [...day, ...updates]);
  for (const { place, left } of work) {
    expect(workOn(actual, place), `work on ${JSON.stringify(place)}`).toEqual(left);
  }
  for (const { message } of updates) {
    const record = actual.state.findByClientId(message.campaignName, message.clientId);
    expect(record?.previewRecordData.map((item) => item.value)).toContain(
      message.previewRecordData[0]?.value,
    );
  }
  countRun(stats, [delivered.result, later.result], platforms, [...day, ...updates]);
};
