// Readers keep coordinates exactly as the file states them: the doubles of text formats, double and
// integer PLY properties and NIfTI millimetres as Float64Array, float32 storage as Float32Array; and every
// reader refuses a coordinate beyond ±1e15, naming the file and the line or byte.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGeometry } from '../src/io/read.js';
import { maskToPoints, voxelToPhysical } from '../src/io/voxel-mask.js';
import { parseNifti } from '../src/io/nifti.js';
import { assertCoordinateType, assertInputError, assertTriangles } from './io-expect.js';
import { niftiBytes } from './nifti-writer.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

// Survey (UTM-like) coordinates: float32 spaces values near 4.2e6 by 0.5, so it would move every one of these.
const UTM = ['500012.3456', '4200087.6543', '101.2345', '500013.0001', '4200088.9999', '99.4999', '499999.9999', '4200000.0001', '-0.0001'];
const UTM_DOUBLES = UTM.map(Number);

function assertExactDoubles(positions: ArrayLike<number>, expected: number[]): void {
  assert.equal(positions.length, expected.length);
  for (let n = 0; n < expected.length; n++) {
    assert.ok(Object.is(positions[n], expected[n]), `coordinate ${n} is ${positions[n]}, expected exactly ${expected[n]}`);
  }
}

describe('text formats keep the parsed doubles', () => {
  it('float32 would have lost these values (the test data means something)', () => {
    assert.ok(UTM_DOUBLES.filter((v) => Math.fround(v) !== v).length === UTM_DOUBLES.length);
  });

  it('XYZ (space separated) and TXT (tabs)', () => {
    const rows = [UTM.slice(0, 3), UTM.slice(3, 6), UTM.slice(6, 9)];
    const xyz = parseGeometry(text(rows.map((r) => r.join(' ')).join('\n') + '\n'), 'utm.xyz');
    assertCoordinateType(xyz, Float64Array);
    assertExactDoubles(xyz.positions, UTM_DOUBLES);
    const txt = parseGeometry(text('# survey\n' + rows.map((r) => r.join('\t')).join('\r\n')), 'utm.txt');
    assertCoordinateType(txt, Float64Array);
    assertExactDoubles(txt.positions, UTM_DOUBLES);
  });

  it('CSV with a header and an extra column, and the quoted-rows path', () => {
    const rows = [UTM.slice(0, 3), UTM.slice(3, 6), UTM.slice(6, 9)];
    const csv = parseGeometry(text('id,x,y,z\n' + rows.map((r, n) => `p${n},${r.join(',')}`).join('\n') + '\n'), 'utm.csv');
    assertCoordinateType(csv, Float64Array);
    assertExactDoubles(csv.positions, UTM_DOUBLES);
    const quoted = parseGeometry(text('"x","y","z"\n' + rows.map((r) => r.map((v) => `"${v}"`).join(',')).join('\n') + '\n'), 'quoted.csv');
    assertCoordinateType(quoted, Float64Array);
    assertExactDoubles(quoted.positions, UTM_DOUBLES);
  });

  it('2D CSV: z is 0 and x, y are exact', () => {
    const g = parseGeometry(text('x,y\n500012.3456,4200087.6543\n'), 'utm-2d.csv');
    assertCoordinateType(g, Float64Array);
    assert.equal(g.dims, 2);
    assertExactDoubles(g.positions, [500012.3456, 4200087.6543, 0]);
  });

  it('ascii PLY, whether the header says float or double', () => {
    for (const type of ['float', 'double']) {
      const ply = `ply\nformat ascii 1.0\nelement vertex 3\nproperty ${type} x\nproperty ${type} y\nproperty ${type} z\n` +
        'property uchar red\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n' +
        `${UTM.slice(0, 3).join(' ')} 255\n${UTM.slice(3, 6).join(' ')} 0\n${UTM.slice(6, 9).join(' ')} 7\n3 0 1 2\n`;
      const g = parseGeometry(text(ply), `utm-${type}.ply`);
      assertCoordinateType(g, Float64Array);
      assertExactDoubles(g.positions, UTM_DOUBLES);
      assertTriangles(g, [0, 1, 2]);
      assert.deepEqual(g.bounds.min, [499999.9999, 4200000.0001, -0.0001]);
    }
  });

  it('OFF, and 4OFF dividing by w with one rounding', () => {
    const off = parseGeometry(text(`OFF\n3 1 0\n${UTM.slice(0, 3).join(' ')}\n${UTM.slice(3, 6).join(' ')}\n${UTM.slice(6, 9).join(' ')}\n3 0 1 2\n`), 'utm.off');
    assertCoordinateType(off, Float64Array);
    assertExactDoubles(off.positions, UTM_DOUBLES);
    const homogeneous = parseGeometry(text(`4OFF\n1 0 0\n${UTM.slice(0, 3).join(' ')} 3\n`), 'utm4.off');
    assertCoordinateType(homogeneous, Float64Array);
    assertExactDoubles(homogeneous.positions, UTM_DOUBLES.slice(0, 3).map((v) => v / 3));
  });

  it('OBJ', () => {
    const obj = parseGeometry(text(`v ${UTM.slice(0, 3).join(' ')}\nv ${UTM.slice(3, 6).join(' ')}\nv ${UTM.slice(6, 9).join(' ')} 1.0\nf 1 2 3\n`), 'utm.obj');
    assertCoordinateType(obj, Float64Array);
    assertExactDoubles(obj.positions, UTM_DOUBLES);
    assertTriangles(obj, [0, 1, 2]);
  });

  it('OBJ with more vertices than the growable buffer starts with', () => {
    const lines: string[] = [];
    const expected: number[] = [];
    for (let n = 0; n < 3000; n++) {
      const x = 500000 + n * 0.0001, y = 4200000.1234 + n, z = 100 - n * 0.001;
      lines.push(`v ${x} ${y} ${z}`);
      expected.push(x, y, z);
    }
    const g = parseGeometry(text(lines.join('\n')), 'many.obj');
    assertCoordinateType(g, Float64Array);
    assertExactDoubles(g.positions, expected);
  });

  it('ascii STL: exact doubles, welded by exact equality (not by their float32 rounding)', () => {
    // 4200087.6543 and 4200087.6544 round to the same float32; as doubles they are different vertices.
    const facet = (a: string, b: string, c: string): string =>
      `facet normal 0 0 1\nouter loop\nvertex ${a}\nvertex ${b}\nvertex ${c}\nendloop\nendfacet\n`;
    const stl = 'solid survey\n' +
      facet('500012.3456 4200087.6543 101.2345', '500013.0001 4200088.9999 99.4999', '499999.9999 4200000.0001 -0.0001') +
      facet('500012.3456 4200087.6544 101.2345', '500013.0001 4200088.9999 99.4999', '499999.9999 4200000.0001 -0.0001') +
      'endsolid survey\n';
    assert.equal(Math.fround(4200087.6543), Math.fround(4200087.6544));
    const g = parseGeometry(text(stl), 'utm.stl');
    assertCoordinateType(g, Float64Array);
    assert.equal(g.count, 4);
    assertTriangles(g, [0, 1, 2, 3, 1, 2]); // the shared corners weld, the two near-equal ones do not
    assertExactDoubles(g.positions, [...UTM_DOUBLES, 500012.3456, 4200087.6544, 101.2345]);
  });

  it('ascii STL: -0 and +0 weld, as in binary STL', () => {
    const stl = 'solid z\nfacet normal 0 0 1\nouter loop\nvertex -0 0 1\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n' +
      'facet normal 0 0 1\nouter loop\nvertex 0 -0 1\nvertex 0 1 0\nvertex 1 1 0\nendloop\nendfacet\nendsolid z\n';
    const g = parseGeometry(text(stl), 'zero.stl');
    assert.equal(g.count, 4);
    assertTriangles(g, [0, 1, 2, 0, 2, 3]);
    assert.ok(Object.is(g.positions[0], 0) && Object.is(g.positions[1], 0), 'the welded vertex holds +0');
  });

  it('numbers with more digits than the scanner\'s fast path still equal Number(text)', () => {
    const values = ['4200087.654321098765', '500012.34560000000001', '1e-7', '123456789012.3456789'];
    const g = parseGeometry(text(`${values[0]} ${values[1]} ${values[2]}\n${values[3]} 0 0\n`), 'long.xyz');
    assertExactDoubles(g.positions, [...values.map(Number), 0, 0]);
  });
});

/** A binary PLY of `count` vertices with the given scalar properties (name, PLY type) and records. */
function binaryPly(
  properties: [name: string, type: 'float' | 'double' | 'int' | 'uint' | 'uchar' | 'short'][],
  records: number[][],
  options: { littleEndian?: boolean; comment?: string; list?: boolean } = {},
): { bytes: Uint8Array; headerLength: number; stride: number } {
  const le = options.littleEndian ?? true;
  const size = { float: 4, double: 8, int: 4, uint: 4, uchar: 1, short: 2 };
  const header = `ply\nformat binary_${le ? 'little' : 'big'}_endian 1.0\n` + (options.comment ? `comment ${options.comment}\n` : '') +
    `element vertex ${records.length}\n` + properties.map(([name, type]) => `property ${type} ${name}\n`).join('') +
    (options.list ? 'property list uchar int extra\n' : '') + 'end_header\n';
  const stride = properties.reduce((s, [, type]) => s + size[type], 0) + (options.list ? 1 : 0);
  const body = new DataView(new ArrayBuffer(stride * records.length));
  records.forEach((record, r) => {
    let at = r * stride;
    properties.forEach(([, type], p) => {
      const v = record[p];
      if (type === 'float') body.setFloat32(at, v, le);
      else if (type === 'double') body.setFloat64(at, v, le);
      else if (type === 'int') body.setInt32(at, v, le);
      else if (type === 'uint') body.setUint32(at, v, le);
      else if (type === 'short') body.setInt16(at, v, le);
      else body.setUint8(at, v);
      at += size[type];
    });
    if (options.list) body.setUint8(at, 0); // an empty list
  });
  const bytes = new Uint8Array(header.length + body.byteLength);
  bytes.set(text(header));
  bytes.set(new Uint8Array(body.buffer), header.length);
  return { bytes, headerLength: header.length, stride };
}

const XYZ_DOUBLE: [string, 'double'][] = [['x', 'double'], ['y', 'double'], ['z', 'double']];
const XYZ_FLOAT: [string, 'float'][] = [['x', 'float'], ['y', 'float'], ['z', 'float']];
const UTM_RECORDS = [UTM_DOUBLES.slice(0, 3), UTM_DOUBLES.slice(3, 6), UTM_DOUBLES.slice(6, 9)];

describe('binary PLY keeps the stored values', () => {
  it('double x, y, z give a Float64Array of exactly the stored doubles (both byte orders, with a list)', () => {
    for (const littleEndian of [true, false]) {
      for (const list of [false, true]) {
        const { bytes } = binaryPly(XYZ_DOUBLE, UTM_RECORDS, { littleEndian, list });
        const g = parseGeometry(bytes, 'utm.ply');
        assertCoordinateType(g, Float64Array);
        assertExactDoubles(g.positions, UTM_DOUBLES);
      }
    }
  });

  it('float32 x, y, z stay a Float32Array (packed fast path, big endian, with extra properties)', () => {
    const expected = UTM_DOUBLES.map(Math.fround);
    for (const littleEndian of [true, false]) {
      for (const extra of [false, true]) {
        const properties: [string, 'float' | 'uchar'][] = extra ? [...XYZ_FLOAT, ['red', 'uchar']] : XYZ_FLOAT;
        const records = extra ? UTM_RECORDS.map((r) => [...r, 9]) : UTM_RECORDS;
        const g = parseGeometry(binaryPly(properties, records, { littleEndian }).bytes, 'f32.ply');
        assertCoordinateType(g, Float32Array);
        assertExactDoubles(g.positions, expected);
      }
    }
  });

  it('any coordinate not float32 gives a Float64Array; float32 values in it are kept exactly', () => {
    const mixed = parseGeometry(binaryPly([['x', 'float'], ['y', 'float'], ['z', 'double']], UTM_RECORDS).bytes, 'mixed.ply');
    assertCoordinateType(mixed, Float64Array);
    assertExactDoubles(mixed.positions, UTM_RECORDS.flatMap(([x, y, z]) => [Math.fround(x), Math.fround(y), z]));
  });

  it('int32 and uint32 coordinates are exact (float32 would round them); small integer types are Float64Array too', () => {
    const ints = parseGeometry(binaryPly([['x', 'int'], ['y', 'uint'], ['z', 'int']], [[2147483647, 4294967295, -2147483647], [16777217, 123456789, -5]]).bytes, 'int.ply');
    assertCoordinateType(ints, Float64Array);
    assertExactDoubles(ints.positions, [2147483647, 4294967295, -2147483647, 16777217, 123456789, -5]);
    const small = parseGeometry(binaryPly([['x', 'uchar'], ['y', 'short'], ['z', 'uchar']], [[255, -32768, 7]]).bytes, 'small.ply');
    assertCoordinateType(small, Float64Array);
    assertExactDoubles(small.positions, [255, -32768, 7]);
  });

  it('double fast paths (packed and strided) give the same doubles at any alignment, and locate a bad value', () => {
    const records = Array.from({ length: 64 }, (_, n) => [500000 + n / 3, 4200000.1234 + n * 1.1, 100 - n / 7, n, -n]);
    const expected = records.flatMap((r) => r.slice(0, 3));
    const layouts: [string, 'double' | 'float'][][] = [
      XYZ_DOUBLE,
      [...XYZ_DOUBLE, ['nx', 'double'], ['ny', 'double']], // stride 40: the strided gather
      [['nx', 'double'], ...XYZ_DOUBLE, ['ny', 'float']], // stride 36: not a multiple of 8, the DataView loop
    ];
    for (const properties of layouts) {
      const order = properties.map(([name]) => name);
      const rows = records.map(([x, y, z, nx, ny]) => order.map((name) => ({ x, y, z, nx, ny })[name as 'x']));
      for (let pad = 0; pad < 8; pad++) {
        const { bytes } = binaryPly(properties, rows, { comment: 'p'.repeat(pad) });
        for (let shift = 0; shift < 8; shift++) {
          const buffer = new Uint8Array(bytes.length + shift);
          buffer.set(bytes, shift);
          const g = parseGeometry(buffer.subarray(shift), 'aligned.ply');
          assertCoordinateType(g, Float64Array);
          assertExactDoubles(g.positions, expected);
        }
      }
      for (const bad of [NaN, -Infinity, 3e15]) {
        const broken = rows.map((r) => r.slice());
        broken[41][order.indexOf('y')] = bad;
        const ply = binaryPly(properties, broken);
        const detail = !Number.isFinite(bad) ? `non-finite coordinate \\(${bad}\\) in vertex 41`
          : `coordinate 3000000000000000 of vertex 41 is beyond ±1e15 \\(too large for exact distances\\)`;
        assertInputError(() => parseGeometry(ply.bytes, 'bad.ply'), new RegExp(`^bad\\.ply \\(byte ${ply.headerLength + 41 * ply.stride}\\): ${detail}$`));
      }
    }
  });

  it('2D double x, y: z is 0', () => {
    const g = parseGeometry(binaryPly([['x', 'double'], ['y', 'double']], [[500012.3456, 4200087.6543]]).bytes, 'xy.ply');
    assertCoordinateType(g, Float64Array);
    assert.equal(g.dims, 2);
    assertExactDoubles(g.positions, [500012.3456, 4200087.6543, 0]);
  });
});

describe('coordinates beyond ±1e15 are refused, naming the file and the line or byte', () => {
  const LIMIT = / is beyond ±1e15 \(too large for exact distances\)$/;
  const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const message = (prefix: string, value: string, vertex: number): RegExp =>
    new RegExp(`^${escape(prefix)}: coordinate ${escape(value)} of vertex ${vertex} is beyond ±1e15 \\(too large for exact distances\\)$`);

  it('±1e15 itself is accepted, in text and in binary', () => {
    const g = parseGeometry(text('1e15 -1e15 0\n'), 'edge.xyz');
    assertExactDoubles(g.positions, [1e15, -1e15, 0]);
    const b = parseGeometry(binaryPly(XYZ_DOUBLE, [[1e15, -1e15, 0]]).bytes, 'edge.ply');
    assertExactDoubles(b.positions, [1e15, -1e15, 0]);
  });

  it('text formats: the line', () => {
    assertInputError(() => parseGeometry(text('1 2 3\n4 2e15 6\n'), 'big.xyz'), message('big.xyz:2', '2000000000000000', 1));
    assertInputError(() => parseGeometry(text('x,y,z\n1,2,3\n4,5,6\n7,8,-2e15\n'), 'big.csv'), message('big.csv:4', '-2000000000000000', 2));
    assertInputError(() => parseGeometry(text('"x","y"\n"1","2"\n"2e15","3"\n'), 'quoted.csv'), message('quoted.csv:3', '2000000000000000', 1));
    assertInputError(() => parseGeometry(text('1.0000000000000002e15 0 0\n'), 'hair.xyz'), message('hair.xyz:1', '1000000000000000.2', 0));
    assertInputError(() => parseGeometry(text('OFF\n2 0 0\n0 0 0\n0 0 2e15\n'), 'big.off'), message('big.off:4', '2000000000000000', 1));
    assertInputError(() => parseGeometry(text('4OFF\n1 0 0\n4e15 0 0 2\n'), 'w.off'), message('w.off:3', '2000000000000000', 0));
    assertInputError(() => parseGeometry(text('# c\nv 0 0 0\nv 2e15 0 0\n'), 'big.obj'), message('big.obj:3', '2000000000000000', 2));
    const ply = 'ply\nformat ascii 1.0\nelement vertex 2\nproperty double x\nproperty double y\nproperty double z\nend_header\n0 0 0\n0 2e15 0\n';
    assertInputError(() => parseGeometry(text(ply), 'big-ascii.ply'), message('big-ascii.ply:9', '2000000000000000', 1));
    const stl = 'solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 2e15 0\nendloop\nendfacet\nendsolid s\n';
    assertInputError(() => parseGeometry(text(stl), 'big.stl'), message('big.stl:6', '2000000000000000', 2));
  });

  it('binary PLY: the byte offset of the vertex record (double, float32 fast path, float32 big endian, with a list)', () => {
    const records = [[1, 2, 3], [4, 5, 6], [7, 2e15, 9]];
    const double = binaryPly(XYZ_DOUBLE, records, { comment: 'survey' });
    assertInputError(() => parseGeometry(double.bytes, 'big.ply'),
      message(`big.ply (byte ${double.headerLength + 2 * double.stride})`, '2000000000000000', 2));
    const f32 = Math.fround(2e15);
    for (const littleEndian of [true, false]) {
      const float = binaryPly(XYZ_FLOAT, records, { littleEndian });
      assertInputError(() => parseGeometry(float.bytes, 'big-f32.ply'),
        message(`big-f32.ply (byte ${float.headerLength + 2 * float.stride})`, String(f32), 2));
    }
    const list = binaryPly(XYZ_DOUBLE, records, { list: true });
    assertInputError(() => parseGeometry(list.bytes, 'big-list.ply'),
      message(`big-list.ply (byte ${list.headerLength + 2 * list.stride})`, '2000000000000000', 2));
  });

  it('binary PLY float32 fast path: a huge float32 anywhere in many points is found', () => {
    const records = Array.from({ length: 64 }, (_, n) => [n, -n, n / 4]);
    records[37][2] = -3e38;
    const ply = binaryPly(XYZ_FLOAT, records);
    assertInputError(() => parseGeometry(ply.bytes, 'huge.ply'),
      message(`huge.ply (byte ${ply.headerLength + 37 * ply.stride})`, String(Math.fround(-3e38)), 37));
  });

  it('binary STL: the byte offset of the coordinate', () => {
    const bytes = new Uint8Array(84 + 50);
    const view = new DataView(bytes.buffer);
    view.setUint32(80, 1, true);
    const corners = [0, 0, 0, 1, 0, 0, 0, 1, -2e15];
    corners.forEach((v, n) => view.setFloat32(84 + 12 + 4 * n, v, true));
    assertInputError(() => parseGeometry(bytes, 'big.stl'),
      message(`big.stl (byte ${84 + 12 + 32})`, String(Math.fround(-2e15)), 2));
    // The largest float32 within the limit passes.
    view.setFloat32(84 + 12 + 32, Math.fround(1e15), true);
    assert.equal(parseGeometry(bytes, 'edge.stl').positions[8], Math.fround(1e15));
    assert.ok(Math.fround(1e15) <= 1e15);
  });

  it('the limit is the same one everywhere', () => {
    for (const [name, bytes] of [['a.xyz', text('0 0 1e16\n')], ['b.obj', text('v 0 0 1e16\n')]] as const) {
      assertInputError(() => parseGeometry(bytes, name), LIMIT);
    }
  });
});

describe('NIfTI masks: millimetres computed and kept in double', () => {
  // NIfTI-2 stores srow_* as doubles, so a survey-sized translation reaches the affine exactly.
  const TX = 4200000.1234, TY = 500000.9876, TZ = 101.2345;
  const dims = [4, 3, 2];
  const all = new Array(24).fill(1);

  it('a large translation: every point equals the double computation, not its float32 rounding', () => {
    const rows = [0.7, 0, 0, TX, 0, 0.35, 0, TY, 0, 0, 2.5, TZ];
    const volume = parseNifti(niftiBytes({ version: 2, dims, values: all, sform: { rows } }), 'survey.nii');
    assert.deepEqual(Array.from(volume.affine), rows);
    const points = maskToPoints(volume, { region: 'all' });
    assert.ok(points.positions instanceof Float64Array);
    const expected: number[] = [];
    for (let k = 0; k < 2; k++) for (let j = 0; j < 3; j++) for (let i = 0; i < 4; i++) {
      expected.push(0.7 * i + TX, 0.35 * j + TY, 2.5 * k + TZ);
    }
    assertExactDoubles(points.positions, expected);
    assert.ok(expected.some((v) => Math.fround(v) !== v));
    // Through the reader entry point too, with bounds from the same doubles.
    const g = parseGeometry(niftiBytes({ version: 2, dims, values: all, sform: { rows } }), 'survey.nii', { mask: { region: 'all' } });
    assertCoordinateType(g, Float64Array);
    assertExactDoubles(g.positions, expected);
    assert.deepEqual(g.bounds, { min: [TX, TY, TZ], max: [0.7 * 3 + TX, 0.35 * 2 + TY, 2.5 + TZ] });
  });

  it('a sheared and rotated affine: points equal voxelToPhysical bit for bit', () => {
    const rows = [0.6, -0.31, 0.07, TX, 0.29, 0.58, -0.11, TY, -0.05, 0.13, 1.9, TZ];
    const volume = parseNifti(niftiBytes({ version: 2, dims, values: all, sform: { rows } }), 'sheared.nii');
    const points = maskToPoints(volume, { region: 'all' });
    const expected: number[] = [];
    for (let k = 0; k < 2; k++) for (let j = 0; j < 3; j++) for (let i = 0; i < 4; i++) expected.push(...voxelToPhysical(volume.affine, i, j, k));
    assertExactDoubles(points.positions, expected);
    // The double computation, written out: linear part first, translation last.
    assert.equal(points.positions[3 * 23], (0.6 * 3 + (-0.31 * 2 + 0.07 * 1)) + TX);
  });

  it('voxel-space points are exact indices in a Float64Array', () => {
    const volume = parseNifti(niftiBytes({ version: 2, dims, values: all, sform: { rows: [0.7, 0, 0, TX, 0, 0.35, 0, TY, 0, 0, 2.5, TZ] } }), 'v.nii');
    const points = maskToPoints(volume, { region: 'all', voxelSpace: true });
    assert.ok(points.positions instanceof Float64Array);
    assert.deepEqual(Array.from(points.positions.subarray(-3)), [3, 2, 1]);
  });

  it('an affine that maps voxels beyond ±1e15 is refused, naming the file', () => {
    const bytes = niftiBytes({ version: 2, dims, values: all, sform: { rows: [1, 0, 0, 2e15, 0, 1, 0, 0, 0, 0, 1, 0] } });
    assertInputError(() => parseGeometry(bytes, 'far.nii'),
      /^far\.nii: coordinate 2000000000000000 of point 0 is beyond ±1e15 \(too large for exact distances\) through the sform affine$/);
  });
});
