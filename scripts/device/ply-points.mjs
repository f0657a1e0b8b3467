// The float32 binary PLY point sets the device scripts time (optix-timing.mjs, reference-cases.mjs): uniform in
// the unit cube (or square: z = 0 for dims 2), moved by `shift`, from a small deterministic generator
// (xorshift) so every run measures the same points. An existing file is kept. With anchor, the first point is
// the origin, not moved by shift: every file then has its smallest coordinates at 0 (see reference-cases.mjs).
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';

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
