// A struct a library fills (an _Out_ argument), passed as memory of its own: koffi hands a typed array's address
// to the library as it is, so it neither clears the struct before the call nor decodes it into an object after.
// read() gives the object koffi would have decoded: the declaration's fields in its order, 64-bit integers as
// numbers where exact (within ±2^53, as koffi) and as bigints beyond, fixed arrays as arrays, nested structs as
// objects. koffi decodes field by field through N-API (about 10 µs for an xhd_hausdorff_result, on the main
// thread after every call); this reads the same values in about 1. Offsets come from koffi.offsetof on the
// declarations, which the loader checked against the library's own layout.
import { endianness } from 'node:os';
import koffi from './koffi.js';

import type { Decoded, FieldType, Fields, Scalar, StructDecl } from './struct-decl.js';

/** The library writes in the host's byte order. */
const LE = endianness() === 'LE';

type Read =
  | { name: string; at: number; scalar: Scalar }
  | { name: string; at: number; scalar: Scalar; length: number; width: number }
  | { name: string; at: number; struct: Read[] };

const WIDTH: Record<Scalar, number> = { int8_t: 1, uint8_t: 1, int32_t: 4, uint32_t: 4, float: 4, double: 8, int64_t: 8, uint64_t: 8 };

const plans = new Map<string, Read[]>();

function planOf(decl: StructDecl): Read[] {
  let plan = plans.get(decl.name);
  if (!plan) {
    plan = Object.entries(decl.fields).map(([name, type]) => readOf(decl.name, name, type));
    plans.set(decl.name, plan);
  }
  return plan;
}

function readOf(struct: string, name: string, type: FieldType): Read {
  const at = koffi.offsetof(struct, name);
  if (typeof type === 'string') {
    if (type in WIDTH) return { name, at, scalar: type as Scalar };
    throw new Error(`${struct}.${name}: a pointer, which StructOut does not read (koffi.decode does)`);
  }
  if (Array.isArray(type)) {
    const [element, length] = type as readonly [Scalar | 'char', number];
    if (element === 'char') throw new Error(`${struct}.${name}: a string, which StructOut does not read (koffi.decode does)`);
    return { name, at, scalar: element, length, width: WIDTH[element] };
  }
  return { name, at, struct: planOf(type as StructDecl<Fields>) };
}

function scalarAt(view: DataView, at: number, type: Scalar): number | bigint {
  switch (type) {
    case 'int8_t': return view.getInt8(at);
    case 'uint8_t': return view.getUint8(at);
    case 'int32_t': return view.getInt32(at, LE);
    case 'uint32_t': return view.getUint32(at, LE);
    case 'float': return view.getFloat32(at, LE);
    case 'double': return view.getFloat64(at, LE);
    case 'int64_t': {
      const high = view.getInt32(at + (LE ? 4 : 0), LE), low = view.getUint32(at + (LE ? 0 : 4), LE);
      // Within ±2^53 (koffi's bound, inclusive) a number, exactly; beyond, a bigint.
      return high >= -0x200000 && (high < 0x200000 || (high === 0x200000 && low === 0)) ? high * 0x100000000 + low : view.getBigInt64(at, LE);
    }
    case 'uint64_t': {
      const high = view.getUint32(at + (LE ? 4 : 0), LE), low = view.getUint32(at + (LE ? 0 : 4), LE);
      return high < 0x200000 || (high === 0x200000 && low === 0) ? high * 0x100000000 + low : view.getBigUint64(at, LE);
    }
  }
}

function readStruct(plan: Read[], view: DataView, base: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of plan) {
    const at = base + field.at;
    if ('struct' in field) {
      out[field.name] = readStruct(field.struct, view, at);
    } else if ('length' in field) {
      const values: Array<number | bigint> = [];
      for (let i = 0; i < field.length; i++) values.push(scalarAt(view, at + i * field.width, field.scalar));
      out[field.name] = values;
    } else {
      out[field.name] = scalarAt(view, at, field.scalar);
    }
  }
  return out;
}

export class StructOut<F extends Fields> {
  /** What the call receives for the struct's pointer: koffi.sizeof(decl.name) bytes, zeroed. */
  readonly bytes: Uint8Array;
  private readonly plan: Read[];

  /** For a declaration of scalars, fixed arrays of scalars and nested such structs (no pointers, no strings). */
  constructor(readonly decl: StructDecl<F>) {
    this.plan = planOf(decl);
    // An ArrayBuffer of its own: never a small typed array's on-heap storage, which the collector could move while
    // an asynchronous call writes to it.
    this.bytes = new Uint8Array(new ArrayBuffer(koffi.sizeof(decl.name)));
  }

  /** The struct as the library left it, as koffi.decode would give it. */
  read(): Decoded<StructDecl<F>> {
    return readStruct(this.plan, new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength), 0) as Decoded<StructDecl<F>>;
  }
}
