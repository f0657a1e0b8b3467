// A minimal PCD writer for the tests: ascii, binary and binary_compressed bodies, any field layout, organized
// clouds; and an LZF compressor (literal runs and back references, found through a hash of three bytes) so that
// the reader's decompressor meets both kinds of token.

export interface PcdFieldSpec {
  name: string;
  type: 'I' | 'U' | 'F';
  size: number;
  count?: number;
}

export interface PcdWriteOptions {
  data: 'ascii' | 'binary' | 'binary_compressed';
  fields?: PcdFieldSpec[];
  /** WIDTH and HEIGHT (default: points × 1). */
  width?: number;
  height?: number;
  /** Header lines replaced or removed (value null), to make a header lie. */
  override?: Record<string, string | null>;
}

export const XYZ_F4: PcdFieldSpec[] = [{ name: 'x', type: 'F', size: 4 }, { name: 'y', type: 'F', size: 4 }, { name: 'z', type: 'F', size: 4 }];

function writeValue(view: DataView, at: number, f: PcdFieldSpec, v: number): void {
  if (f.type === 'F') {
    if (f.size === 4) view.setFloat32(at, v, true);
    else view.setFloat64(at, v, true);
  } else if (f.size === 1) {
    if (f.type === 'I') view.setInt8(at, v);
    else view.setUint8(at, v);
  } else if (f.size === 2) {
    if (f.type === 'I') view.setInt16(at, v, true);
    else view.setUint16(at, v, true);
  } else if (f.size === 4) {
    if (f.type === 'I') view.setInt32(at, v, true);
    else view.setUint32(at, v, true);
  } else if (f.type === 'I') view.setBigInt64(at, BigInt(v), true);
  else view.setBigUint64(at, BigInt(v), true);
}

/**
 * A PCD file of `points`, each a value per field value (fields named x, y, z take those coordinates; others
 * get a value of their own, index-based noise that the reader must skip).
 */
export function pcdBytes(points: number[][], options: PcdWriteOptions): Uint8Array {
  const fields = options.fields ?? XYZ_F4;
  const width = options.width ?? points.length, height = options.height ?? 1;
  const valueOf = (p: number, f: PcdFieldSpec, k: number): number => {
    const axis = ['x', 'y', 'z'].indexOf(f.name);
    if (axis >= 0 && k === 0) return points[p][axis];
    return f.type === 'F' ? (p * 7 + k) % 13 + 0.5 : (p * 7 + k) % 100;
  };
  const lines: [string, string][] = [
    ['VERSION', '0.7'],
    ['FIELDS', fields.map((f) => f.name).join(' ')],
    ['SIZE', fields.map((f) => f.size).join(' ')],
    ['TYPE', fields.map((f) => f.type).join(' ')],
    ['COUNT', fields.map((f) => f.count ?? 1).join(' ')],
    ['WIDTH', String(width)],
    ['HEIGHT', String(height)],
    ['VIEWPOINT', '0 0 0 1 0 0 0'],
    ['POINTS', String(points.length)],
    ['DATA', options.data],
  ];
  const header = '# .PCD v0.7 - Point Cloud Data file format\n' +
    lines.filter(([k]) => options.override?.[k] !== null).map(([k, v]) => `${k} ${options.override?.[k] ?? v}\n`).join('');
  const encoder = new TextEncoder();
  if (options.data === 'ascii') {
    const body = points.map((_, p) => fields.flatMap((f) => Array.from({ length: f.count ?? 1 }, (__, k) => String(valueOf(p, f, k)))).join(' ')).join('\n');
    return encoder.encode(header + body + '\n');
  }
  const record = fields.reduce((n, f) => n + f.size * (f.count ?? 1), 0);
  const body = new Uint8Array(points.length * record);
  const view = new DataView(body.buffer);
  if (options.data === 'binary') {
    points.forEach((_, p) => {
      let at = p * record;
      for (const f of fields) for (let k = 0; k < (f.count ?? 1); k++, at += f.size) writeValue(view, at, f, valueOf(p, f, k));
    });
  } else {
    let at = 0; // one field's values for every point, then the next field's
    for (const f of fields) for (let p = 0; p < points.length; p++) for (let k = 0; k < (f.count ?? 1); k++, at += f.size) writeValue(view, at, f, valueOf(p, f, k));
  }
  const head = encoder.encode(header);
  if (options.data === 'binary') return concat(head, body);
  const packed = lzfCompress(body);
  const sizes = new Uint8Array(8);
  new DataView(sizes.buffer).setUint32(0, packed.length, true);
  new DataView(sizes.buffer).setUint32(4, body.length, true);
  return concat(head, sizes, packed);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** LZF-compresses `input`: back references (3 to 264 bytes, up to 8192 back) where a match is found, else literals. */
export function lzfCompress(input: Uint8Array): Uint8Array {
  const out: number[] = [];
  const seen = new Map<number, number>();
  let literal: number[] = [];
  const flush = () => {
    for (let i = 0; i < literal.length; i += 32) {
      const run = literal.slice(i, i + 32);
      out.push(run.length - 1, ...run);
    }
    literal = [];
  };
  let ip = 0;
  while (ip < input.length) {
    const key = ip + 2 < input.length ? (input[ip] << 16) | (input[ip + 1] << 8) | input[ip + 2] : -1;
    const candidate = key >= 0 ? seen.get(key) : undefined;
    if (key >= 0) seen.set(key, ip);
    if (candidate !== undefined && ip - candidate - 1 < 8192) {
      let length = 0;
      while (length < 264 && ip + length < input.length && input[candidate + length] === input[ip + length]) length++;
      if (length >= 3) {
        flush();
        const offset = ip - candidate - 1, len = length - 2;
        if (len < 7) out.push((len << 5) | (offset >> 8), offset & 255);
        else out.push((7 << 5) | (offset >> 8), len - 7, offset & 255);
        ip += length;
        continue;
      }
    }
    literal.push(input[ip++]);
  }
  flush();
  return Uint8Array.from(out);
}
