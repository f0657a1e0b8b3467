// The xhd_progress a running call shares with its caller, in memory koffi allocates so that the worker
// thread can write it while JavaScript reads it: done and total as the library last wrote them, cancel,
// which the caller sets, and the message the call leaves as it returns. Its fields are read and written at
// the offsets of the one declaration (PROGRESS in abi.ts) that the loader checked against the library.
import koffi from './koffi.js';

import { PROGRESS } from './abi.js';
import { StructView } from './struct-view.js';

export class ProgressSlot {
  /** What the native call receives as its xhd_progress *. */
  readonly pointer: unknown;
  private readonly view: StructView<typeof PROGRESS.fields>;
  private freed = false;

  constructor() {
    const bytes = koffi.sizeof(PROGRESS.name);
    this.pointer = koffi.alloc(PROGRESS.name, 1);
    const memory = koffi.view(this.pointer, bytes);
    new Uint8Array(memory).fill(0);
    this.view = new StructView(PROGRESS, memory);
  }

  /** Work done so far, in the call's own units. */
  get done(): number {
    return this.view.get('done');
  }

  /** All the work the call has announced (0 until it knows). */
  get total(): number {
    return this.view.get('total');
  }

  /**
   * Why the call failed ('' while it runs and after a success): this call's own message, which no other call
   * overwrites, unlike the library's last error (kernels/include/xhd.h). Read it once the call has returned.
   */
  get message(): string {
    return this.view.text('message');
  }

  get cancelled(): boolean {
    return this.view.get('cancel') !== 0;
  }

  /** Asks the call to stop: it returns XHD_ERROR_CANCELLED at its next check. */
  cancel(): void {
    this.view.set('cancel', 1);
  }

  /** Releases the memory; only once the call has returned. */
  free(): void {
    if (this.freed) return;
    this.freed = true;
    koffi.free(this.pointer);
  }
}
