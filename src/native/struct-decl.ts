// One declaration per C struct of kernels/include/xhd.h: a field table from which both the koffi struct
// (what crosses the ABI) and the TypeScript type (what the code reads) are derived, so the two cannot
// drift apart, and which the loader checks field by field against the library's own layout
// (xhd_struct_field, src/native/layout-check.ts).
import koffi from './koffi.js';
import type * as Koffi from 'koffi';

/** C scalars decoded to a JavaScript number. */
type NumberScalar = 'int8_t' | 'uint8_t' | 'int32_t' | 'uint32_t' | 'float' | 'double';
/** 64-bit integers: koffi gives a number when it is exact, else a bigint. */
type WideScalar = 'int64_t' | 'uint64_t';
export type Scalar = NumberScalar | WideScalar;
/**
 * A pointer field: the caller passes a typed array (const: read by the library) or a native buffer (e.g. the
 * per-point outputs the library writes), or null; a decoded one is an opaque address.
 */
export type Pointer = `${string} *`;
/** A fixed array: [element, length]; an array of char is a NUL-terminated string. */
export type FixedArray = readonly [Scalar | 'char', number];
export type FieldType = Scalar | Pointer | FixedArray | StructDecl;
export type Fields = { readonly [field: string]: FieldType };

export interface StructDecl<F extends Fields = Fields> {
  readonly name: string;
  readonly fields: F;
}

/** The TypeScript type koffi decodes a field of C type T to. */
export type TsOf<T> = T extends NumberScalar
  ? number
  : T extends WideScalar
    ? number | bigint
    : T extends Pointer
      ? unknown
      : T extends readonly ['char', number]
        ? string
        : T extends readonly [infer E, number]
          ? TsOf<E>[]
          : T extends StructDecl<infer F>
            ? StructOf<F>
            : never;

/** A decoded struct: every declared field with its TypeScript type. */
export type StructOf<F extends Fields> = { -readonly [K in keyof F]: TsOf<F[K]> };
/** The decoded type of a declaration, e.g. Decoded<typeof DIRECTED>. */
export type Decoded<D> = D extends StructDecl<infer F> ? StructOf<F> : never;

/** Every struct declared, in order: the loader checks each against the library. */
export const DECLARED_STRUCTS: StructDecl[] = [];

function koffiType(type: FieldType): string | Koffi.IKoffiCType {
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const [element, length] = type as FixedArray;
    return koffi.array(element, length, element === 'char' ? 'String' : 'Array');
  }
  return (type as StructDecl).name;
}

/**
 * Registers the koffi struct `name` with these fields, in this order (koffi lays them out as a C compiler
 * does), and returns the declaration whose Decoded<> type the code reads results through.
 */
export function declareStruct<const F extends Fields>(name: string, fields: F): StructDecl<F> {
  koffi.struct(name, Object.fromEntries(Object.entries(fields).map(([field, type]) => [field, koffiType(type)])));
  const decl: StructDecl<F> = { name, fields };
  DECLARED_STRUCTS.push(decl);
  return decl;
}
