// Live access to the scalar fields of one struct in memory the library reads or writes while a call runs
// (the progress slot): each field is a one-element typed array of its own C type at the offset koffi lays
// it out at, so it is read and written in the host's byte order at its declared place. Integer fields go
// through Atomics, which makes every read and write whole (a 64-bit counter is never seen half-updated).
// A char array field (a NUL-terminated string) is read as text, at its declared place too.
import koffi from './koffi.js';

import type { FieldType, Fields, Scalar, StructDecl } from './struct-decl.js';

type IntegerArray = Int8Array | Uint8Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;
type ScalarArray = IntegerArray | Float32Array | Float64Array;

const ARRAY_OF: Record<Scalar, new (buffer: ArrayBuffer, byteOffset: number, length: number) => ScalarArray> = {
  int8_t: Int8Array,
  uint8_t: Uint8Array,
  int32_t: Int32Array,
  uint32_t: Uint32Array,
  int64_t: BigInt64Array,
  uint64_t: BigUint64Array,
  float: Float32Array,
  double: Float64Array,
};

/** The fields of F that are scalars (those a view reads and writes). */
export type ScalarField<F extends Fields> = { [K in keyof F]: F[K] extends Scalar ? K : never }[keyof F] & string;
/** The fields of F that are strings: char arrays (those a view reads as text). */
export type TextField<F extends Fields> = { [K in keyof F]: F[K] extends readonly ['char', number] ? K : never }[keyof F] & string;

function isText(type: FieldType): type is readonly ['char', number] {
  return Array.isArray(type) && type[0] === 'char';
}

// The library writes UTF-8 (cut at a character boundary, xhd.h); anything else shows as U+FFFD, never throws.
const utf8 = new TextDecoder('utf-8');

export class StructView<F extends Fields> {
  private readonly cells = new Map<string, ScalarArray>();
  private readonly texts = new Map<string, Uint8Array>();

  /** A view of the struct at the start of `memory` (at least koffi.sizeof(decl.name) bytes). */
  constructor(decl: StructDecl<F>, memory: ArrayBuffer) {
    if (memory.byteLength < koffi.sizeof(decl.name)) {
      throw new Error(`${decl.name} needs ${koffi.sizeof(decl.name)} bytes, the memory has ${memory.byteLength}`);
    }
    for (const [field, type] of Object.entries(decl.fields)) {
      if (isText(type)) {
        this.texts.set(field, new Uint8Array(memory, koffi.offsetof(decl.name, field), type[1]));
        continue;
      }
      if (typeof type !== 'string' || !(type in ARRAY_OF)) continue;
      const Cell = ARRAY_OF[type as Scalar];
      // koffi aligns every field to its size; a typed array refuses a misaligned offset, so a layout that
      // broke that would fail here instead of being misread.
      this.cells.set(field, new Cell(memory, koffi.offsetof(decl.name, field), 1));
    }
  }

  get(field: ScalarField<F>): number {
    const cell = this.cell(field);
    if (cell instanceof Float32Array || cell instanceof Float64Array) return cell[0];
    if (cell instanceof BigInt64Array || cell instanceof BigUint64Array) return Number(Atomics.load(cell, 0));
    return Atomics.load(cell, 0);
  }

  set(field: ScalarField<F>, value: number): void {
    const cell = this.cell(field);
    if (cell instanceof Float32Array || cell instanceof Float64Array) cell[0] = value;
    else if (cell instanceof BigInt64Array || cell instanceof BigUint64Array) Atomics.store(cell, 0, BigInt(value));
    else Atomics.store(cell, 0, value);
  }

  /** A string field: its bytes up to the first NUL (all of them when there is none), decoded as UTF-8. */
  text(field: TextField<F>): string {
    const bytes = this.texts.get(field);
    if (!bytes) throw new Error(`no string field ${field}`);
    const end = bytes.indexOf(0);
    return utf8.decode(bytes.subarray(0, end < 0 ? bytes.length : end));
  }

  private cell(field: string): ScalarArray {
    const cell = this.cells.get(field);
    if (!cell) throw new Error(`no scalar field ${field}`);
    return cell;
  }
}
