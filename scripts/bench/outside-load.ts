// The machine may be shared: a measurement during which other processes used more CPU than this
// (in cores, averaged over its wall time) is repeated when short, and marked † otherwise.
import { readFileSync } from 'node:fs';

import type { Outcome } from './methods.js';

export const OUTSIDE_LOAD_LIMIT = 0.25;
const RETRY_BELOW_MS = 10_000;
const MAX_RETRIES = 2;
const RETRY_PAUSE_MS = 3000;
const CLOCK_TICKS_PER_S = 100; // USER_HZ of /proc/stat

/** CPU time, in seconds, that all processes of the machine have spent so far (NaN where /proc/stat is missing). */
function machineBusySeconds(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = fields;
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/** Runs a measurement and records how many cores other processes kept busy meanwhile. */
async function withOutsideLoad<T extends Outcome>(measure: () => Promise<T>): Promise<T> {
  const busy0 = machineBusySeconds();
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  const outcome = await measure();
  const wallS = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(own0);
  if (outcome.kind === 'done') {
    const ownS = (own.user + own.system) / 1e6 + (outcome.childCpuS ?? 0);
    // Two clock ticks of slack: /proc/stat counts in 10 ms steps, which would swamp very short runs.
    outcome.outsideCores = Math.max(0, (machineBusySeconds() - busy0 - ownS - 2 / CLOCK_TICKS_PER_S) / wallS);
  }
  return outcome;
}

/** Whether other processes used more than OUTSIDE_LOAD_LIMIT cores during a finished measurement. */
export const disturbed = (o: Outcome) => o.kind === 'done' && (o.outsideCores ?? 0) > OUTSIDE_LOAD_LIMIT;

/**
 * Measures, then measures again (up to MAX_RETRIES times) while the result was disturbed and short enough
 * to repeat cheaply; onRetry hears the outside load that caused each retry.
 */
export async function measureUndisturbed<T extends Outcome>(measure: () => Promise<T>, onRetry: (outsideCores: number) => void): Promise<T> {
  let outcome = await withOutsideLoad(measure);
  for (let retry = 1; retry <= MAX_RETRIES && disturbed(outcome) && outcome.kind === 'done' && outcome.wallMs < RETRY_BELOW_MS; ++retry) {
    onRetry(outcome.outsideCores!);
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS)); // let a short burst (a compile, a test) pass
    outcome = await withOutsideLoad(measure);
  }
  return outcome;
}
