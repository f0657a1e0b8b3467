// The raw LAS records of a LAZ file of point formats 0-3, decoded three ways for the tests to compare: the
// native decoder (kernels/cpu/laz_reader.cpp, every record handed back), xhd's TypeScript decoder
// (src/io/laz-v2-chunk.ts) chunk by chunk, and laz-perf (LASzip compiled to WebAssembly) chunk by chunk
// and through its own whole-file reader (which parses the header and LASzip VLR itself).
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';

import { readFully } from '../src/io/input-file.js';
import { LAS_HEADER_PROBE, parseLasHeader, type LasHeader } from '../src/io/las-header.js';
import { readLasVlrs } from '../src/io/las-vlrs.js';
import { readLazLayout, type LazLayout } from '../src/io/laz-chunks.js';
import { LazChunkDecoder } from '../src/io/laz-decoder.js';
import { readLazNatively } from '../src/io/laz-native.js';
import { decodeV2Chunk } from '../src/io/laz-v2-chunk.js';
import { nativeReader } from '../src/io/native-reader.js';

export interface LazFile {
  header: LasHeader;
  layout: LazLayout;
  bytes: Uint8Array;
}

export function openLaz(path: string): LazFile {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  try {
    const prefix = new Uint8Array(Math.min(LAS_HEADER_PROBE, size));
    readFully(fd, prefix, 0, prefix.length, 0);
    const header = parseLasHeader(prefix, size, path);
    const layout = readLazLayout(fd, path, size, header, readLasVlrs(fd, header, size, path));
    return { header, layout, bytes: readFileSync(path) };
  } finally {
    closeSync(fd);
  }
}

export function nativeRecords(path: string, file: LazFile, threads = 0): Uint8Array {
  const reader = nativeReader();
  if (!reader) throw new Error('the native CPU library is not built');
  const records = new Uint8Array(file.header.pointCount * file.header.recordLength);
  const body = readLazNatively(reader, path, file.header, file.layout, null, records, threads);
  if (!body) throw new Error('the native decoder does not decode these items');
  return records;
}

export function typescriptRecords(file: LazFile): Uint8Array {
  const { header, layout, bytes } = file;
  const out = new Uint8Array(header.pointCount * header.recordLength);
  for (const c of layout.chunks) {
    decodeV2Chunk(bytes.subarray(c.offset, c.offset + c.bytes), c.points, layout.items, header.recordLength, out.subarray(c.firstPoint * header.recordLength));
  }
  return out;
}

export function lazPerfChunkRecords(file: LazFile): Uint8Array {
  const { header, layout, bytes } = file;
  const out = new Uint8Array(header.pointCount * header.recordLength);
  const decoder = new LazChunkDecoder();
  for (const c of layout.chunks) {
    const view = decoder.decode(bytes.subarray(c.offset, c.offset + c.bytes), c.points, header.pointFormat.id, header.recordLength);
    out.set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength), c.firstPoint * header.recordLength);
  }
  return out;
}

/** laz-perf's own LASZip reader over the whole file: its point count, record length and records. */
export function lazPerfFileRecords(path: string): { count: number; length: number; records: Uint8Array } {
  const require = createRequire(import.meta.url);
  const { createLazPerf } = require('laz-perf') as { createLazPerf: (m: object) => unknown };
  const wasm = new WebAssembly.Module(readFileSync(require.resolve('laz-perf/lib/node/laz-perf.wasm')));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const module: Record<string, any> = {
    instantiateWasm(imports: WebAssembly.Imports, done: (i: WebAssembly.Instance, m: WebAssembly.Module) => void) {
      const instance = new WebAssembly.Instance(wasm, imports);
      done(instance, wasm);
      return instance.exports;
    },
    print: () => undefined,
    printErr: () => undefined,
  };
  createLazPerf(module);
  const file = readFileSync(path);
  const data = module._malloc(file.length);
  module.HEAPU8.set(file, data);
  const reader = new module.LASZip();
  reader.open(data, file.length);
  const count = reader.getCount(), length = reader.getPointLength();
  const point = module._malloc(length);
  const records = new Uint8Array(count * length);
  for (let i = 0; i < count; i++) {
    reader.getPoint(point);
    records.set(module.HEAPU8.subarray(point, point + length), i * length);
  }
  reader.delete();
  return { count, length, records };
}
