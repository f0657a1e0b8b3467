// Generated LiDAR-like points for the LAZ writer's tests and the reader benchmark: scan lines of small steps
// with jumps and far outliers in height, returns of 1-5, a few classes (some with a flag bit), intensities,
// GPS times (steady, repeated, going back, rarely jumping far), colours (grey and not) and a double
// 'distance'. Deterministic for a seed.

export function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** Points on the LAS grid of `scale` and `offset` (X, Y, Z kept to check against), with every field. */
export function generateLidarPoints(count: number, seed: number, scale: number[], offset: number[], outlierRate = 0.01) {
  const r = random(seed);
  const X = new Int32Array(count), Y = new Int32Array(count), Z = new Int32Array(count);
  const xyz = new Float64Array(3 * count);
  const intensity = new Uint16Array(count), returnNumber = new Uint8Array(count), returnCount = new Uint8Array(count);
  const classification = new Uint8Array(count), gpsTime = new Float64Array(count), rgb = new Uint16Array(3 * count);
  const distance = new Float64Array(count);
  let x = 1_234_567, y = 2_345_678, z = 150_000, t = 301_234.5, n = 1, k = 1;
  for (let i = 0; i < count; i++) {
    // A scan line: small steps, now and then a jump (a new line) or a far outlier.
    x += Math.floor(r() * 200) - 60;
    y += Math.floor(r() * 30) - 15;
    if (r() < 0.001) y += 50_000;
    z = r() < outlierRate ? Math.floor(r() * 2 ** 31) - 2 ** 30 : z + Math.floor(r() * 400) - 200;
    X[i] = x; Y[i] = y; Z[i] = z;
    xyz[3 * i] = x * scale[0] + offset[0];
    xyz[3 * i + 1] = y * scale[1] + offset[1];
    xyz[3 * i + 2] = z * scale[2] + offset[2];
    if (k > n) {
      n = 1 + Math.floor(r() * 5);
      k = 1;
    }
    returnNumber[i] = k++;
    returnCount[i] = n;
    classification[i] = [1, 2, 2, 2, 3, 5, 6, 9][Math.floor(r() * 8)] | (r() < 0.01 ? 0x40 : 0);
    intensity[i] = r() < 0.2 ? intensity[Math.max(0, i - 1)] : Math.floor(r() * 65536);
    const step = r();
    // Mostly steady, sometimes the same time, sometimes back, rarely a jump beyond 32 bits of the double's pattern.
    t = step < 0.1 ? t : step < 0.12 ? t - 0.5 : step < 0.121 ? t + 1e7 * r() : t + 0.00001 * (1 + Math.floor(r() * 3));
    gpsTime[i] = t;
    const grey = r() < 0.3;
    const red = Math.floor(r() * 65536);
    rgb[3 * i] = red;
    rgb[3 * i + 1] = grey ? red : (red + Math.floor(r() * 2000)) & 0xffff;
    rgb[3 * i + 2] = grey ? red : Math.floor(r() * 65536);
    distance[i] = r() < 0.05 ? 0 : r() * 10 - 1;
  }
  return { X, Y, Z, xyz, intensity, returnNumber, returnCount, classification, gpsTime, rgb, distance };
}

export type Generated = ReturnType<typeof generateLidarPoints>;
