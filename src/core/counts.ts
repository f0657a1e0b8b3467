// Counts in words ("3,000,000 points"): for reports, and for the notes that jobs and readers write.

/**
 * n with a comma between groups of three digits, as toLocaleString('en-US') writes it. Whole numbers are
 * grouped here by hand: the first toLocaleString of a process loads the locale data, which cost 12 ms of a
 * 150 ms compare on this VM (measured with --cpu-prof); anything else still goes to toLocaleString.
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let grouped = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = grouped.length; i < digits.length; i += 3) grouped += `,${digits.slice(i, i + 3)}`;
  return n < 0 || Object.is(n, -0) ? `-${grouped}` : grouped;
}

/** "1 point", "3,000,000 points": the count with separators and the noun in the number it needs. */
export function countOf(n: number, noun: string, nouns = `${noun}s`): string {
  return `${formatCount(n)} ${n === 1 ? noun : nouns}`;
}

/** Bytes in binary units: "512 B", "1.50 GiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}
