/** `1 event`, `2 events`: a count with its noun in the right number. */
export const counted = (count: number, singular: string, plural = `${singular}s`): string =>
  `${count} ${count === 1 ? singular : plural}`;
