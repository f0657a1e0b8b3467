// Where and how an operation runs: the threads, the GPU ordinal and the backend library, resolved and
// checked the same way for every operation (the --threads, --device and --backend choices).
import { availableParallelism } from 'node:os';

import { expectInteger } from '../core/arguments.js';
import type { NativeBackend } from '../native/library.js';
import { selectBackend, type BackendChoice } from './backends.js';

export interface RunChoice {
  backend?: BackendChoice;
  /** GPU ordinal (device backends); default 0. */
  device?: number;
  /** Worker threads; default every hardware thread. */
  threads?: number;
}

export interface RunSettings {
  backend: NativeBackend;
  threads: number;
  device: number;
}

/** The threads and device checked first (a bad value is a usage error before any library loads), then the backend. */
export function resolveRun(choice: RunChoice, method: string): RunSettings {
  const threads = choice.threads === undefined ? availableParallelism() : expectInteger(choice.threads, 'threads', 1, 4096);
  const device = choice.device === undefined ? 0 : expectInteger(choice.device, 'device', 0, 1024);
  return { backend: selectBackend(choice.backend ?? 'auto', method, device), threads, device };
}
