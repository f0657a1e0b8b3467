// SIGINT (Ctrl-C) and SIGTERM while a command runs: either aborts its work through one AbortSignal whose
// reason names the signal, so the command ends with exit 130 or 143 (CancelledError) after removing any
// output file it was writing. A second signal of the same kind gets Node's default: the process ends.
export async function withInterrupts<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onInterrupt = () => abort.abort('SIGINT');
  const onTerminate = () => abort.abort('SIGTERM');
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onTerminate);
  try {
    return await work(abort.signal);
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onTerminate);
  }
}
