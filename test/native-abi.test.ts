// The typed ABI (src/native/abi.ts): every struct of kernels/include/xhd.h declared once in TypeScript and laid
// out as each library was compiled (size, field names, order, offsets); the capability bits each library
// states and what the loader binds from them; the progress slot read and written at its declared offsets,
// its cancel stopping a long call.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import koffi from 'koffi';

import {
  DIRECTION_AB,
  DIRECTION_BA,
  HAUSDORFF_OPTIONS,
  METHOD_CODES,
  pointsArg,
  PROGRESS,
  PROTOTYPES,
  XHD_CAP_DELIMITED_TEXT,
  XHD_CAP_DEVICES,
  XHD_CAP_FILE_READERS,
  XHD_CAP_NEAREST_POINTS,
  XHD_CAP_REFERENCE_METHODS,
  XHD_CAP_STREAMED_COMPARE,
  XHD_ERROR_CANCELLED,
  XHD_ERROR_UNAVAILABLE,
  XHD_MESSAGE_BYTES,
  XHD_OK,
  type RawHausdorffResult,
  type RawNearestResult,
} from '../src/native/abi.js';
import { firstLayoutMismatch, layoutMismatch, layoutReader, type LibraryLayout } from '../src/native/layout-check.js';
import { probeBackend } from '../src/ops/backends.js';
import { libraryDir, loadBackend, type BackendName, type NativeBackend } from '../src/native/library.js';
import { ProgressSlot } from '../src/native/progress-slot.js';
import { nativeDistanceStats } from '../src/ops/distance-stats-native.js';
import { maskPointsOnAsync } from '../src/ops/mask-points.js';
import { DECLARED_STRUCTS } from '../src/native/struct-decl.js';
import { repoRoot } from './helpers.js';
import { rng, uniform } from './random-points.js';
import { suiteUnless } from './skippable-suite.js';

const header = readFileSync(join(repoRoot, 'kernels', 'include', 'xhd.h'), 'utf8');

/** The structs xhd.h defines, and each one's field names in order, read from the header itself. */
function headerStructs(): Map<string, string[]> {
  const text = header.replace(/\/\*[\s\S]*?\*\//g, '');
  const structs = new Map<string, string[]>();
  for (const m of text.matchAll(/typedef struct (\w+) \{([\s\S]*?)\} \1;/g)) {
    const fields = m[2].split(';').map((d) => d.trim()).filter(Boolean).map((d) => /(\w+)(\[\w+\])?$/.exec(d)![1]);
    structs.set(m[1], fields);
  }
  return structs;
}

const libraries: BackendName[] = ['cpu', 'cuda'];
const present = (name: BackendName) => existsSync(join(libraryDir(), `libxhd_${name}.so`));

describe('struct declarations and the libraries agree', () => {
  it('every struct of xhd.h is declared once, with its fields in the header\'s order', () => {
    const structs = headerStructs();
    assert.ok(structs.size >= 20, `found ${structs.size} structs in xhd.h`);
    const declared = DECLARED_STRUCTS.map((d) => d.name);
    assert.equal(new Set(declared).size, declared.length, 'a struct declared twice');
    assert.deepEqual([...declared].sort(), [...structs.keys()].sort());
    for (const decl of DECLARED_STRUCTS) assert.deepEqual(Object.keys(decl.fields), structs.get(decl.name), decl.name);
  });

  for (const name of libraries) {
    it(`the ${name} library lays out every declared struct as declared`, { skip: !present(name) && `no ${name} library built` }, () => {
      const layoutOf = layoutReader(koffi.load(join(libraryDir(), `libxhd_${name}.so`)));
      assert.equal(firstLayoutMismatch(layoutOf), null);
      for (const decl of DECLARED_STRUCTS) {
        const theirs = layoutOf(decl.name);
        assert.equal(theirs.size, koffi.sizeof(decl.name), decl.name);
        assert.deepEqual(theirs.fields, Object.keys(decl.fields).map((f) => ({ name: f, offset: koffi.offsetof(decl.name, f) })), decl.name);
      }
      assert.deepEqual(layoutOf('xhd_no_such_struct'), { size: 0, fields: [] });
    });
  }

  describe('a layout that differs is described', () => {
    // The library's own layout of xhd_hausdorff_options, then changed as a mismatched build would have it.
    const real = (): LibraryLayout => ({
      size: koffi.sizeof(HAUSDORFF_OPTIONS.name),
      fields: Object.keys(HAUSDORFF_OPTIONS.fields).map((f) => ({ name: f, offset: koffi.offsetof(HAUSDORFF_OPTIONS.name, f) })),
    });

    it('as declared: no mismatch', () => assert.equal(layoutMismatch(HAUSDORFF_OPTIONS, real()), null));

    it('another size', () => {
      const l = real();
      l.size += 8;
      assert.equal(layoutMismatch(HAUSDORFF_OPTIONS, l), `the library lays out xhd_hausdorff_options in ${l.size} bytes, this xhd in ${l.size - 8}`);
    });

    it('a field moved', () => {
      const l = real();
      l.fields[5].offset += 4;
      assert.equal(layoutMismatch(HAUSDORFF_OPTIONS, l), `xhd_hausdorff_options.cell_size lies at byte ${l.fields[5].offset} in the library, at ${l.fields[5].offset - 4} in this xhd`);
    });

    it('a field renamed', () => {
      const l = real();
      l.fields[1].name = 'direction_bits';
      assert.equal(layoutMismatch(HAUSDORFF_OPTIONS, l), 'field 1 of xhd_hausdorff_options is direction_bits in the library, directions in this xhd');
    });

    it('a field the library lacks, and one it has beyond ours', () => {
      const fewer = real();
      fewer.fields.pop();
      assert.equal(layoutMismatch(HAUSDORFF_OPTIONS, fewer), 'field 7 of xhd_hausdorff_options is absent in the library, reserved in this xhd');
      const more = real();
      more.fields.push({ name: 'extra', offset: more.size });
      assert.equal(layoutMismatch(HAUSDORFF_OPTIONS, more), 'field 8 of xhd_hausdorff_options is extra in the library, absent in this xhd');
    });

    it('a struct the library does not know', () => {
      assert.equal(layoutMismatch(HAUSDORFF_OPTIONS, { size: 0, fields: [] }), 'the library does not know xhd_hausdorff_options');
    });
  });
});

/** The library's capability bits, straight from xhd_capabilities. */
function capabilityBits(name: BackendName): bigint {
  return BigInt(koffi.load(join(libraryDir(), `libxhd_${name}.so`)).func(PROTOTYPES.capabilities)() as number | bigint);
}

describe('capabilities come from the library', () => {
  it('the cpu library implements every optional part but devices, and the loader binds them', { skip: !present('cpu') && 'no cpu library built' }, () => {
    assert.equal(capabilityBits('cpu'), XHD_CAP_NEAREST_POINTS | XHD_CAP_FILE_READERS | XHD_CAP_DELIMITED_TEXT | XHD_CAP_REFERENCE_METHODS | XHD_CAP_STREAMED_COMPARE);
    const cpu = loadBackend('cpu');
    assert.deepEqual(cpu.capabilities, { nearestPoints: true, fileReaders: true, delimitedText: true, devices: false, referenceMethods: true, streamedCompare: true });
    assert.notEqual(cpu.nearestPoints, null);
    assert.notEqual(cpu.pointsCompareFiles, null);
    assert.notEqual(cpu.readers, null);
  });

  it('the cuda library implements devices alone, and exports the rest as unavailable', { skip: !present('cuda') && 'no cuda library built' }, () => {
    assert.equal(capabilityBits('cuda'), XHD_CAP_DEVICES);
    const cuda = loadBackend('cuda');
    assert.deepEqual(cuda.capabilities, { nearestPoints: false, fileReaders: false, delimitedText: false, devices: true, referenceMethods: false, streamedCompare: false });
    assert.equal(cuda.nearestPoints, null);
    assert.equal(cuda.pointsCompareFiles, null);
    assert.equal(cuda.readers, null);
    // Every symbol of the header is there all the same, answering unavailable and naming the library that has it.
    const lib = koffi.load(cuda.path);
    const points = pointsArg(new Float32Array([0, 0, 0]));
    const distance = new Float64Array(1);
    const nearest = lib.func(PROTOTYPES.nearestPoints);
    const slot = new ProgressSlot();
    try {
      assert.equal(nearest(points, points, { method: 0, directions: 1, threads: 1, device: 0, seed: 0, cell_size: 0 }, distance, null, {}, slot.pointer),
        XHD_ERROR_UNAVAILABLE);
      assert.match(cuda.lastError(), /cuda library does not implement xhd_nearest_points \(XHD_CAP_NEAREST_POINTS\); the cpu library does/);
      assert.equal(slot.message, cuda.lastError(), 'the same message in the call\'s own slot');
    } finally {
      slot.free();
    }
    const lines = new BigUint64Array(1);
    assert.equal(lib.func(PROTOTYPES.countLines)(new Uint8Array(4), 4, 1, lines), XHD_ERROR_UNAVAILABLE);
    assert.match(cuda.lastError(), /xhd_count_lines \(XHD_CAP_DELIMITED_TEXT\)/);
    const read = new BigUint64Array(1);
    assert.equal(lib.func(PROTOTYPES.readTriangleRecords)(new Uint8Array(13), 1, 3, 1, new Uint32Array(3), read), XHD_ERROR_UNAVAILABLE);
    assert.match(cuda.lastError(), /xhd_read_triangle_records \(XHD_CAP_FILE_READERS\); the cpu library does/);
    for (const entry of ['readFile', 'readPlyVertices', 'countDegenerateTriangles', 'parseDelimited'] as const) {
      assert.doesNotThrow(() => lib.func(PROTOTYPES[entry]), entry);
    }
  });
});

describe('the progress slot', () => {
  it('reads and writes each field at its declared offset, in the host\'s byte order', () => {
    const slot = new ProgressSlot();
    try {
      const bytes = koffi.sizeof(PROGRESS.name);
      const memory = new DataView(koffi.view(slot.pointer, bytes));
      const le = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
      for (let i = 0; i < bytes; i++) assert.equal(memory.getUint8(i), 0, 'starts zeroed');
      assert.deepEqual([slot.done, slot.total, slot.cancelled], [0, 0, false]);
      // What the library would write: done and total as uint64 at their offsets.
      memory.setBigUint64(koffi.offsetof(PROGRESS.name, 'done'), 2n ** 40n + 3n, le);
      memory.setBigUint64(koffi.offsetof(PROGRESS.name, 'total'), 2n ** 41n, le);
      assert.deepEqual([slot.done, slot.total], [2 ** 40 + 3, 2 ** 41]);
      slot.cancel();
      assert.equal(memory.getUint32(koffi.offsetof(PROGRESS.name, 'cancel'), le), 1);
      assert.equal(memory.getUint32(koffi.offsetof(PROGRESS.name, 'reserved'), le), 0, 'cancel writes its own four bytes only');
      assert.deepEqual([slot.done, slot.total, slot.cancelled], [2 ** 40 + 3, 2 ** 41, true]);
      // The message: UTF-8 up to its NUL, at its offset; all of it when the library filled every byte.
      assert.equal(slot.message, '');
      const at = koffi.offsetof(PROGRESS.name, 'message');
      const text = new TextEncoder().encode('point 7 of set A: é');
      new Uint8Array(memory.buffer, memory.byteOffset + at, text.length).set(text);
      assert.equal(slot.message, 'point 7 of set A: é');
      new Uint8Array(memory.buffer, memory.byteOffset + at, XHD_MESSAGE_BYTES).fill(0x61);
      assert.equal(slot.message, 'a'.repeat(XHD_MESSAGE_BYTES));
      assert.equal(at + XHD_MESSAGE_BYTES, bytes, 'the message is the last field');
    } finally {
      slot.free();
    }
  });

  it('cancel through the slot stops a long native call, which reported its progress there', async () => {
    const cpu: NativeBackend = loadBackend('cpu');
    // Brute force over 300k x 300k points: about 1e11 pair distances, minutes on any machine if not cancelled.
    const n = 300_000;
    const queries = uniform(n, 3, rng(11));
    const targets = uniform(n, 3, rng(12));
    const distance = new Float64Array(n);
    const slot = new ProgressSlot();
    const started = performance.now();
    try {
      const status = new Promise<number>((resolve, reject) => {
        cpu.nearestPoints!.async(pointsArg(queries), pointsArg(targets),
          { method: METHOD_CODES.brute, directions: 1, threads: 2, device: 0, seed: 0, cell_size: 0 },
          distance, null, {} as RawNearestResult, slot.pointer, (err: unknown, s: number) => (err ? reject(err) : resolve(s)));
      });
      // The library announces the total (one unit per query point) before it starts.
      const deadline = performance.now() + 5000;
      while (slot.total === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.equal(slot.total, n);
      assert.ok(slot.done <= n);
      slot.cancel();
      assert.equal(await status, XHD_ERROR_CANCELLED);
      assert.ok(slot.done < n, `stopped early (${slot.done} of ${n} done)`);
      assert.ok(performance.now() - started < 10_000, 'the cancel took effect promptly');
      assert.match(cpu.lastError(), /cancel/i);
      assert.match(slot.message, /cancel/i);
    } finally {
      slot.free();
    }
  });
});

/** xhd_hausdorff in both directions through a progress slot; the status it returned. */
function hausdorffThrough(backend: NativeBackend, method: 'grid' | 'eb', a: Float32Array, b: Float32Array, slot: ProgressSlot): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    backend.hausdorff.async(pointsArg(a), pointsArg(b),
      { method: METHOD_CODES[method], directions: DIRECTION_AB | DIRECTION_BA, threads: 0, device: 0, seed: 1, cell_size: 0 },
      {} as RawHausdorffResult, slot.pointer, (err: unknown, s: number) => (err ? reject(err) : resolve(s)));
  });
}

/** The slot as each library reads and writes it: the total it announces, the work it counts, a cancel set before the call. */
function slotAgreesWith(name: BackendName) {
  const n = 200_000;
  const a = uniform(n, 3, rng(21));
  const b = uniform(n, 3, rng(22));

  it(`${name}: a finished call announced its total and counted its work in the slot`, async () => {
    const slot = new ProgressSlot();
    try {
      assert.equal(await hausdorffThrough(loadBackend(name), 'grid', a, b, slot), XHD_OK);
      assert.equal(slot.total, 2 * n, 'one unit per point of each direction');
      assert.ok(slot.done > 0 && slot.done <= slot.total, `done ${slot.done} of ${slot.total}`);
      assert.equal(slot.cancelled, false);
      assert.equal(slot.message, '', 'a success leaves no message');
    } finally {
      slot.free();
    }
  });

  it(`${name}: a cancel set before the call stops it`, async () => {
    const slot = new ProgressSlot();
    try {
      slot.cancel();
      assert.equal(await hausdorffThrough(loadBackend(name), 'eb', a, b, slot), XHD_ERROR_CANCELLED);
      assert.match(loadBackend(name).lastError(), /cancelled by the caller/);
      assert.equal(slot.message, 'cancelled by the caller', 'the call\'s own message, in its slot');
    } finally {
      slot.free();
    }
  });
}

describe('the progress slot as the cpu library uses it', () => slotAgreesWith('cpu'));

describe('the cuda library leaves a refusal in the call\'s own slot', { skip: !present('cuda') && 'no cuda library built' }, () => {
  // The input is checked before any device is used, so this runs without a GPU too.
  it('xhd_hausdorff with a point beyond the coordinates it takes', async () => {
    const a = uniform(16, 3, rng(31));
    a[3 * 5 + 2] = 1e20;
    const slot = new ProgressSlot();
    try {
      assert.notEqual(await hausdorffThrough(loadBackend('cuda'), 'grid', a, uniform(16, 3, rng(32)), slot), XHD_OK);
      assert.equal(slot.message, 'point 5 of set A has a coordinate beyond +-1e15');
    } finally {
      slot.free();
    }
  });

  it('xhd_distance_stats and xhd_mask_points, asynchronous, each through a slot of its own', async () => {
    await assert.rejects(nativeDistanceStats(Float64Array.of(0, 1), null, {}, { backend: 'cuda', threads: -1 }), { message: /: threads must be >= 0$/ });
    const affine = Float64Array.of(Infinity, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0);
    await assert.rejects(maskPointsOnAsync('cuda', { values: new Uint8Array(8), dims: [2, 2, 2], affine, surface: true }),
      { message: /: the affine must be finite$/ });
  });
});

const cuda = probeBackend('cuda');
suiteUnless(cuda.available ? false : `no usable CUDA GPU (${(cuda.reason ?? '').split('\n')[0]})`, 'the progress slot as the cuda library uses it', () => {
  slotAgreesWith('cuda');
});
