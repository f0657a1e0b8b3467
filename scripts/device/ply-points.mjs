// The float32 binary PLY point sets the device scripts time (optix-timing.mjs, reference-cases.mjs): uniform in
// the unit cube (or square: z = 0 for dims 2), moved by `shift`, from a small deterministic generator
// (xorshift) so every run measures the same points. An existing file is kept. With anchor, the first point is
// the origin, not moved by shift: every file then has its smallest coordinates at 0 (see reference-cases.mjs).
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export function writePly(path, n, dims, seed, shift, anchor = false) {
  if (existsSync(path)) return;
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
  const fd = openSync(path, 'w');
  writeSync(fd, `ply\nformat binary_little_endian 1.0\nelement vertex ${n}\nproperty float x\nproperty float y\nproperty float z\nend_header\n`);
  const chunk = 1 << 20;
  for (let first = 0; first < n; first += chunk) {
    const m = Math.min(chunk, n - first);
    const xyz = new Float32Array(3 * m);
    for (let i = 0; i < m; i++) {
      for (let k = 0; k < 3; k++) xyz[3 * i + k] = k < dims ? Math.fround(next()) + shift[k] : 0;
      if (anchor && first + i === 0) xyz.fill(0, 0, 3);
    }
    writeSync(fd, new Uint8Array(xyz.buffer));
  }
  closeSync(fd);
}

/**
 * The four cases of the reference bench at n points, written under dir once (anchored, so the reference
 * measures the same sets: reference-cases.mjs) and shared by the scripts that time them: 3D and 2D, B = A +
 * 0.001 on every axis (overlapping) or A + 2 on x (disjoint). Yields { label, dims, a, b }.
 */
export function* referenceCases(dir, n) {
  for (const dims of [3, 2]) {
    for (const [kind, shift] of [['overlapping', [0.001, 0.001, 0.001]], ['disjoint', [2, 0, 0]]]) {
      const a = join(dir, `${dims}d-${n}-anchored-a.ply`), b = join(dir, `${dims}d-${n}-anchored-${kind}-b.ply`);
      writePly(a, n, dims, 12345, [0, 0, 0], true);
      writePly(b, n, dims, 12345, shift.map((v, k) => (k < dims ? v : 0)), true);
      yield { label: `${n} ${dims}D ${kind}`, dims, a, b };
    }
  }
}
