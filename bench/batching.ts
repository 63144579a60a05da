/** How the bench groups its work into SQS batches. */

/** Splits `items` into consecutive groups of `size`. */
export const chunk = <T>(items: readonly T[], size: number): T[][] => {
  const groups: T[][] = [];
  for (let start = 0; start < items.length; start += size) {
    groups.push(items.slice(start, start + size));
  }
  return groups;
};
