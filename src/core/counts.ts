// Counts in words ("3,000,000 points"): for reports, and for the notes that jobs and readers write.

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** "1 point", "3,000,000 points": the count with separators and the noun in the number it needs. */
export function countOf(n: number, noun: string, nouns = `${noun}s`): string {
  return `${formatCount(n)} ${n === 1 ? noun : nouns}`;
}
