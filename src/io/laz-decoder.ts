// One LAZ chunk decoded by laz-perf (LASzip compiled to WebAssembly, an npm dependency): the compressed chunk
// is copied into the module's memory and decoded there into raw LAS point records, which las-records.ts
// then reads like an uncompressed body. The module is instantiated synchronously from a compiled
// WebAssembly.Module, so that the synchronous readers (and the worker threads) need no event loop.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

interface LazPerfModule {
  HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  ChunkDecoder: new () => { open(format: number, recordLength: number, pointer: number): void; getPoint(pointer: number): void; delete(): void };
}

const require = createRequire(import.meta.url);

let compiled: WebAssembly.Module | undefined;

/** laz-perf's WebAssembly, compiled once a thread (and handed to workers, which need not compile it again). */
export function lazPerfWasm(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(readFileSync(require.resolve('laz-perf/lib/node/laz-perf.wasm')));
  return compiled;
}

/** Bytes of zeros after a chunk: the decoder may look a few bytes ahead of the data it decodes. */
const PADDING = 64;

export class LazChunkDecoder {
  private readonly module: LazPerfModule;
  private input = 0;
  private inputBytes = 0;
  private output = 0;
  private outputBytes = 0;

  constructor(wasm: WebAssembly.Module = lazPerfWasm()) {
    const { createLazPerf } = require('laz-perf') as { createLazPerf: (module: object) => unknown };
    const module = {
      instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
        const instance = new WebAssembly.Instance(wasm, imports);
        done(instance, wasm);
        return instance.exports;
      },
      print: () => undefined,
      printErr: () => undefined,
    };
    createLazPerf(module);
    this.module = module as unknown as LazPerfModule;
    if (typeof this.module.ChunkDecoder !== 'function') throw new Error('laz-perf did not initialize synchronously');
  }

  /** Room for `bytes` of compressed data; its pointer. */
  private inputRoom(bytes: number): number {
    if (bytes + PADDING > this.inputBytes) {
      if (this.input) this.module._free(this.input);
      this.inputBytes = Math.max(bytes + PADDING, 2 * this.inputBytes);
      this.input = this.module._malloc(this.inputBytes);
    }
    return this.input;
  }

  private outputRoom(bytes: number): number {
    if (bytes > this.outputBytes) {
      if (this.output) this.module._free(this.output);
      this.outputBytes = Math.max(bytes, 2 * this.outputBytes);
      this.output = this.module._malloc(this.outputBytes);
    }
    return this.output;
  }

  /**
   * Decodes a chunk of `points` records of `format` (0-10) and `recordLength` bytes; returns a view of the
   * records, valid until the next call.
   */
  decode(chunk: Uint8Array, points: number, format: number, recordLength: number): DataView {
    const input = this.inputRoom(chunk.length);
    const output = this.outputRoom(points * recordLength);
    if (!input || !output) throw new Error(`laz-perf could not allocate ${chunk.length + points * recordLength} bytes`);
    // Memory may have grown (and HEAPU8 been replaced) in the allocations above.
    const heap = this.module.HEAPU8;
    heap.set(chunk, input);
    heap.fill(0, input + chunk.length, input + chunk.length + PADDING);
    const decoder = new this.module.ChunkDecoder();
    try {
      decoder.open(format, recordLength, input);
      for (let p = 0, at = output; p < points; p++, at += recordLength) decoder.getPoint(at);
    } finally {
      decoder.delete();
    }
    const after = this.module.HEAPU8;
    return new DataView(after.buffer, after.byteOffset + output, points * recordLength);
  }
}
