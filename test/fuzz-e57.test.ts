// Mutations of E57 files: byte flips anywhere (with every page's CRC made right again, so that the checks past
// the CRC are reached), characters of the XML replaced by XML's own punctuation and digits, flips left with
// their bad CRC, and truncation. Each read must end as a geometry with finite coordinates or as one input error
// naming the file, quickly; never another exception, a hang, or a giant allocation.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { readGeometry } from '../src/io/read.js';
import { scratchDir } from './cli-run.js';
import { e57File, fixPageCrc, PAGE, type E57ScanSpec } from './helpers/e57-writer.js';
import { rng } from './random-points.js';
import { outcome } from './reader-test-tools.js';

const CASES = Number(process.env.XHD_FUZZ_CASES ?? 80);
// Another seed gives other cases (a long campaign; README, Development): CI runs seed 0.
const SEED = Number(process.env.XHD_FUZZ_SEED ?? 0);
const dir = scratchDir();
const PUNCTUATION = '<>&;"\'=/!?[]#x0123456789-e. ';

function fixAll(bytes: Uint8Array): void {
  for (let at = 0; at + PAGE <= bytes.length; at += PAGE) fixPageCrc(bytes, at);
}

function fuzz(name: string, original: { bytes: Uint8Array; xmlPhysical: number }, seed: number): void {
  it(`${name}: ${CASES} mutations end as points or one input error`, () => {
    const random = rng(SEED * 1000 + seed);
    let errors = 0;
    for (let k = 0; k < CASES; k++) {
      const bytes = Uint8Array.from(original.bytes);
      let mutated: Uint8Array = bytes;
      const kind = k % 4;
      if (kind === 0 || kind === 2) {
        for (let f = 0; f < 1 + Math.floor(random() * 6); f++) bytes[Math.floor(random() * bytes.length)] ^= 1 << Math.floor(random() * 8);
        if (kind === 0) fixAll(bytes);
      } else if (kind === 1) {
        for (let f = 0; f < 1 + Math.floor(random() * 4); f++) {
          const at = original.xmlPhysical + Math.floor(random() * (bytes.length - original.xmlPhysical));
          if (at % PAGE < PAGE - 4) bytes[at] = PUNCTUATION.charCodeAt(Math.floor(random() * PUNCTUATION.length));
        }
        fixAll(bytes);
      } else {
        mutated = bytes.subarray(0, Math.floor(random() * bytes.length));
      }
      const path = join(dir, `${name}-${k}.e57`);
      writeFileSync(path, mutated);
      const started = performance.now();
      const result = outcome(() => readGeometry(path));
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

describe('fuzzed E57', () => {
  const n = 400;
  const cartesian: E57ScanSpec = {
    name: 'a', pose: { rotation: [0.5, 0.5, 0.5, 0.5], translation: [500000, 4200000, 10] }, packetRecords: 70,
    fields: [
      { name: 'cartesianX', kind: 'scaled', minimum: -100000n, maximum: 100000n, scale: 0.001, values: Array.from({ length: n }, (_, i) => i * 401 - 80000) },
      { name: 'cartesianY', kind: 'float32', values: Array.from({ length: n }, (_, i) => i * 0.25) },
      { name: 'cartesianZ', kind: 'integer', minimum: 0n, maximum: 1000n, values: Array.from({ length: n }, (_, i) => i % 1001) },
      { name: 'cartesianInvalidState', kind: 'integer', minimum: 0n, maximum: 2n, values: Array.from({ length: n }, (_, i) => (i % 13 === 0 ? 2 : 0)) },
    ],
  };
  const spherical: E57ScanSpec = {
    name: 'b', packetRecords: 50,
    fields: [
      { name: 'sphericalRange', kind: 'float64', values: Array.from({ length: n }, (_, i) => 1 + i) },
      { name: 'sphericalAzimuth', kind: 'scaled', minimum: -31416n, maximum: 31416n, scale: 1e-4, values: Array.from({ length: n }, (_, i) => (i * 157) % 31416) },
      { name: 'sphericalElevation', kind: 'float64', values: Array.from({ length: n }, (_, i) => (i % 30) * 0.05 - 0.7) },
    ],
  };
  fuzz('two-scans', e57File([cartesian, spherical]), 11);
  fuzz('cartesian', e57File([cartesian]), 12);
});
