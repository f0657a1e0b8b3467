// Mutations of LAS and LAZ files (byte flips anywhere, flips in the header and chunk table, truncation): each
// read must end as a geometry with finite coordinates or as one input error naming the file, quickly; never
// another exception, a hang, or a giant allocation.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { readGeometry } from '../src/io/read.js';
import { scratchDir } from './cli-run.js';
import { sharedData } from './helpers.js';
import { lasBytes, text } from './las-writer.js';
import { lazFromTemplate } from './laz-writer.js';
import { outcome } from './reader-test-tools.js';
import { rng } from './random-points.js';

const CASES = Number(process.env.XHD_FUZZ_CASES ?? 60);
// Another seed gives other cases (a long campaign; README, Development): CI runs seed 0.
const SEED = Number(process.env.XHD_FUZZ_SEED ?? 0);
const dir = scratchDir();

function fuzz(name: string, original: Uint8Array, ext: string, seed: number): void {
  it(`${name}: ${CASES} mutations end as points or one input error`, () => {
    const random = rng(SEED * 1000 + seed);
    let errors = 0;
    for (let k = 0; k < CASES; k++) {
      const bytes = Uint8Array.from(original);
      const kind = k % 3;
      let mutated: Uint8Array = bytes;
      if (kind === 0) {
        for (let f = 0; f < 1 + Math.floor(random() * 6); f++) bytes[Math.floor(random() * bytes.length)] ^= 1 << Math.floor(random() * 8);
      } else if (kind === 1) {
        // The header and what follows it: counts, offsets, sizes, the VLRs and (LAZ) the chunk table offset.
        for (let f = 0; f < 1 + Math.floor(random() * 3); f++) bytes[Math.floor(random() * Math.min(bytes.length, 400))] = Math.floor(random() * 256);
      } else {
        mutated = bytes.subarray(0, Math.floor(random() * bytes.length));
      }
      const path = join(dir, `${name}-${k}.${ext}`);
      writeFileSync(path, mutated);
      const started = performance.now();
      const result = outcome(() => readGeometry(path, { format: ext === 'laz' ? 'laz' : 'las' }));
      assert.ok(performance.now() - started < 5000, `mutation ${k} took ${performance.now() - started} ms`);
      if ('error' in result) {
        errors++;
        assert.ok(result.error.startsWith(path) && !result.error.includes('\n'), result.error);
      } else {
        assert.ok(result.geometry.positions.every(Number.isFinite), `mutation ${k}: non-finite coordinates`);
      }
    }
    assert.ok(errors > 0, 'no mutation was refused: the fuzzer is not reaching the checks');
  });
}

describe('fuzzed LAS and LAZ', () => {
  const points = Array.from({ length: 300 }, (_, i) => ({ X: i * 977, Y: -i * 331, Z: i % 17, classification: i % 7, returnNumber: 1 + (i % 2), numberOfReturns: 2 }));
  fuzz('las-1.2-format-3', lasBytes(points, { format: 3, minor: 2, scale: [0.001, 0.001, 0.001], offset: [500000, 4200000, 0] }), 'las', 1);
  fuzz('las-1.4-format-7', lasBytes(points, { format: 7, minor: 4, recordLength: 40,
    evlrs: [{ userId: 'LASF_Projection', recordId: 2112, payload: text('PROJCS["x",UNIT["metre",1],AUTHORITY["EPSG","32633"]]') }] }), 'las', 2);
  const template = sharedData('lidar/point-time.las.laz');
  if (template) fuzz('laz', lazFromTemplate(readFileSync(template), { copies: 3 }), 'laz', 3);
});
