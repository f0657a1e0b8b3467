// The check at load that this xhd's struct declarations (src/native/abi.ts) lay out every struct as the library
// was compiled: the same size, and the same fields, by name, in the same order, at the same offsets. A field
// added, removed, renamed or retyped on one side only would otherwise be read or written in the wrong place,
// silently.
import koffi from './koffi.js';
import type * as Koffi from 'koffi';

import { DECLARED_STRUCTS, type StructDecl } from './struct-decl.js';

/** The library's own layout of a struct: its size and its fields in order. */
export interface LibraryLayout {
  size: number;
  fields: { name: string; offset: number }[];
}

/** Reads a struct's layout through xhd_struct_size and xhd_struct_field of a loaded library. */
export function layoutReader(lib: Koffi.IKoffiLib): (struct: string) => LibraryLayout {
  const size = lib.func('uint64_t xhd_struct_size(const char *name)') as (name: string) => number | bigint;
  const field = lib.func('const char *xhd_struct_field(const char *name, uint32_t index, _Out_ uint64_t *offset)') as (
    name: string,
    index: number,
    offset: [number | bigint],
  ) => string | null;
  return (struct) => {
    const fields: LibraryLayout['fields'] = [];
    for (let i = 0; ; i++) {
      const offset: [number | bigint] = [0];
      const name = field(struct, i, offset);
      if (name === null) break;
      fields.push({ name, offset: Number(offset[0]) });
    }
    return { size: Number(size(struct)), fields };
  };
}

/** What differs between a declaration and the library's layout of it, or null when they agree. */
export function layoutMismatch(decl: StructDecl, theirs: LibraryLayout): string | null {
  const ours = koffi.sizeof(decl.name);
  if (theirs.size === 0) return `the library does not know ${decl.name}`;
  if (theirs.size !== ours) return `the library lays out ${decl.name} in ${theirs.size} bytes, this xhd in ${ours}`;
  const names = Object.keys(decl.fields);
  const count = Math.max(names.length, theirs.fields.length);
  for (let i = 0; i < count; i++) {
    const field = theirs.fields[i];
    if (names[i] !== field?.name) {
      return `field ${i} of ${decl.name} is ${field ? field.name : 'absent'} in the library, ${names[i] ?? 'absent'} in this xhd`;
    }
    const offset = koffi.offsetof(decl.name, field.name);
    if (offset !== field.offset) {
      return `${decl.name}.${field.name} lies at byte ${field.offset} in the library, at ${offset} in this xhd`;
    }
  }
  return null;
}

/** The first struct declared here whose layout the library does not share, described; null when all agree. */
export function firstLayoutMismatch(layoutOf: (struct: string) => LibraryLayout): string | null {
  for (const decl of DECLARED_STRUCTS) {
    const mismatch = layoutMismatch(decl, layoutOf(decl.name));
    if (mismatch) return mismatch;
  }
  return null;
}
