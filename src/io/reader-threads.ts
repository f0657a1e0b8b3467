// How many threads a reader's native job uses: the run's --threads (ReadOptions.threads), else 0, which the
// library takes as every core this process may run on. A reader's own variable (XHD_LAS_THREADS and the
// like, for tests and measurements) wins over both.
export function readerThreads(requested: number | undefined, variable?: string): number {
  const forced = variable === undefined ? Number.NaN : Number(process.env[variable]);
  if (forced >= 1) return Math.floor(forced);
  return requested !== undefined && requested >= 1 ? Math.floor(requested) : 0;
}
