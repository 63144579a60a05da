import type { CensusStore, CheckIn } from './instance-census';

/** The census of one process (the local run, tests). */
export class InMemoryCensusStore implements CensusStore {
  readonly #services = new Map<string, Map<string, number>>();

  async checkIn({ service, instance, now, forget }: CheckIn): Promise<ReadonlyMap<string, number>> {
    const seen = this.#services.get(service) ?? new Map<string, number>();
    this.#services.set(service, seen);
    const gone = [...forget].filter(([other]) => other !== instance);
    // All or none, as the DynamoDB store's one conditional update.
    if (gone.every(([other, at]) => seen.get(other) === at)) {
      for (const [other] of gone) seen.delete(other);
    }
    seen.set(instance, now);
    return new Map(seen);
  }
}
