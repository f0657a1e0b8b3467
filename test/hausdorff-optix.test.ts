// The OptiX backend (libxhd_optix.so: the X-HD search on ray tracing, the rest the CUDA backend's) against
// the exact CPU methods: the agreement cases against the double-precision brute force, survey coordinates
// with near-ties and exact ties, sets of 1M to 4M points against the CPU grid, the chunked path, the CLI,
// and the errors of an OptiX that cannot run. Skips, with the reason, where OptiX cannot run here.
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { libraryDir } from '../src/native/library.js';
import { probeBackend } from '../src/ops/backends.js';
import { hausdorff, type HausdorffResult } from '../src/ops/hausdorff.js';
import { AGREEMENT_CASES as cases } from './agreement-cases.js';
import { assertChunkedLikeCpu } from './chunked-cuda.js';
import { runXhd, scratchDir, writeXyz } from './cli-run.js';
import { assertExact, utmExactTies, utmNearTies, utmShiftedTile } from './exact-cases.js';
import { clustered, rng, shifted, uniform, withDuplicates } from './random-points.js';
import { suiteUnless } from './skippable-suite.js';

const optix = probeBackend('optix');
const skip = optix.available ? false : `OptiX cannot run here (${(optix.reason ?? '').split('\n')[0]})`;

/** OptiX's answer (the X-HD search on ray tracing) equals the reference bit for bit, witnesses included. */
async function checkOptix(label: string, a: Float32Array | Float64Array, b: Float32Array | Float64Array, reference: HausdorffResult) {
  const r = await hausdorff(a, b, { method: 'grid', backend: 'optix' });
  assert.equal(r.backend, 'optix');
  for (const [got, want, name] of [[r.ab, reference.ab, 'A→B'], [r.ba!, reference.ba!, 'B→A']] as const) {
    assert.deepEqual([got.distance, got.fromIndex, got.toIndex], [want.distance, want.fromIndex, want.toIndex], `${label} optix ${name}`);
  }
  return r;
}

suiteUnless(skip, 'OptiX backend agrees with the double-precision brute force', () => {
  for (const dims of [3, 2] as const) {
    for (const c of cases) {
      for (const n of [1, 17, 1000, 12000]) {
        it(`${c.name}, ${dims}D, ${n} points`, async () => {
          const [a, b] = c.make(n, dims, 1000 * n + dims);
          await checkOptix(`${c.name} ${dims}D n=${n}`, a, b, await hausdorff(a, b, { method: 'brute' }));
        });
      }
    }
  }

  it('every point identical, and A = B', async () => {
    const a = new Float32Array(3 * 500).fill(0.25);
    const b = new Float32Array(3 * 300).fill(0.75);
    await checkOptix('all identical', a, b, await hausdorff(a, b, { method: 'brute' }));
    const c = clustered(5000, 3, rng(11));
    assert.equal((await hausdorff(c, c.slice(), { method: 'grid', backend: 'optix' })).hd, 0);
  });

  it('the search does its work on the device: distances evaluated, most queries pruned', async () => {
    // Two independent sets: nearest distances vary, so early break settles most queries (a shifted copy would
    // not: there every nearest distance is the same and every query survives).
    const r = rng(12);
    const a = uniform(200_000, 3, r), b = uniform(200_000, 3, r);
    const result = await checkOptix('uniform 200k', a, b, await hausdorff(a, b, { method: 'grid', backend: 'cpu' }));
    assert.ok(result.ab.distanceEvals > 0, 'no distance evaluated on the device');
    assert.ok(result.ab.prunedQueries > 100_000, `only ${result.ab.prunedQueries} of 200000 queries pruned`);
  });
});

suiteUnless(skip, 'OptiX backend is exact over survey coordinates', () => {
  const exact: Array<[string, () => [Float64Array, Float64Array]]> = [
    ['a 100 m tile and its copy moved 12 mm (every query survives)', () => utmShiftedTile(3000, 1)],
    ['the same in 2D', () => utmShiftedTile(3000, 2, 2)],
    ['near-ties below float32 resolution', () => utmNearTies(2000, 3)],
    ['exact ties: every nearest distance is 1/8', () => utmExactTies(2000, 5)],
  ];
  for (const [name, make] of exact) {
    it(name, async () => {
      const [a, b] = make();
      const r = await hausdorff(a, b, { method: 'grid', backend: 'optix' });
      assertExact(r, a, b, `${name}, optix`);
    });
  }

  it('far apart sets: every query needs the widest radius', async () => {
    const [a, b0] = utmNearTies(3000, 9);
    const b = b0.map((v, i) => (i % 3 === 0 ? v + 2000 : v));
    await checkOptix('far apart', a, b, await hausdorff(a, b, { method: 'grid', backend: 'cpu' }));
  });

  it('the chunked path settles survivors from every chunk', async () => {
    const [a, partners] = utmNearTies(400_000, 7);
    await assertChunkedLikeCpu(a, partners.slice(0, 3 * 50_000), 'optix');
  });
});

// The search's other primitives and build modes (kernels/optix/optix_tuning.h), chosen by the library from
// the environment at each call: each must give the same answers as the default runs of 16 points.
const VARIANTS: Array<[string, Record<string, string>]> = [
  ['one built-in sphere a point', { XHD_OPTIX_PRIMITIVE: 'spheres' }],
  ['one box a point', { XHD_OPTIX_CHUNK: '1' }],
  ['runs of 7 points (a partial last run)', { XHD_OPTIX_CHUNK: '7' }],
  ['runs of 64 points, rebuilt at each radius', { XHD_OPTIX_CHUNK: '64', XHD_OPTIX_REBUILD: '1' }],
  ['the first radius one cell, not the seeded distance', { XHD_SEEDED_RADIUS: '0' }],
];

for (const [variant, env] of VARIANTS) {
  suiteUnless(skip, `OptiX backend with ${variant} agrees too`, () => {
    before(() => Object.assign(process.env, env));
    after(() => { for (const name of Object.keys(env)) delete process.env[name]; });
    for (const dims of [3, 2] as const) {
      for (const c of cases) {
        it(`${c.name}, ${dims}D, 12000 points`, async () => {
          const [a, b] = c.make(12000, dims, 7000 + dims);
          await checkOptix(`${variant}: ${c.name} ${dims}D`, a, b, await hausdorff(a, b, { method: 'brute' }));
        });
      }
    }
    it('exact ties and far apart sets over survey coordinates', async () => {
      const [a, b] = utmExactTies(2000, 5);
      assertExact(await hausdorff(a, b, { method: 'grid', backend: 'optix' }), a, b, `${variant}: exact ties`);
      const [c, d0] = utmNearTies(3000, 9);
      const d = d0.map((v, i) => (i % 3 === 0 ? v + 2000 : v));
      await checkOptix(`${variant}: far apart`, c, d, await hausdorff(c, d, { method: 'grid', backend: 'cpu' }));
    });
    it('disjoint 1M, 3D', async () => {
      const r = rng(5);
      const a = uniform(1_000_000, 3, r), b = uniform(1_000_000, 3, r, 2.5);
      await checkOptix(`${variant}: disjoint 1M`, a, b, await hausdorff(a, b, { method: 'grid', backend: 'cpu' }));
    });
  });
}

suiteUnless(skip, 'OptiX backend on 1M to 4M points agrees with the CPU grid', () => {
  const big: Array<[string, () => [Float32Array, Float32Array]]> = [
    ['uniform overlapping 1M, 3D', () => { const a = uniform(1_000_000, 3, rng(1)); return [a, shifted(a, 0.005)]; }],
    ['clustered 2M, 3D', () => { const r = rng(2); return [clustered(2_000_000, 3, r), clustered(2_000_000, 3, r)]; }],
    ['uniform 4M, 2D', () => { const r = rng(4); return [uniform(4_000_000, 2, r), uniform(4_000_000, 2, r)]; }],
    ['disjoint 1M', () => { const r = rng(5); return [uniform(1_000_000, 3, r), uniform(1_000_000, 3, r, 2.5)]; }],
    ['exact duplicates, 1M', () => { const r = rng(7); const a = withDuplicates(uniform(250_000, 3, r), 4, r); return [a, uniform(1_000_000, 3, r)]; }],
    ['A = B, 1M', () => { const a = clustered(1_000_000, 3, rng(8)); return [a, a.slice()]; }],
  ];
  for (const [name, make] of big) {
    it(name, async () => {
      const [a, b] = make();
      await checkOptix(name, a, b, await hausdorff(a, b, { method: 'grid', backend: 'cpu' }));
    });
  }
});

suiteUnless(skip, 'OptiX backend through the CLI', () => {
  it('xhd compare --backend optix: the CPU\'s hd and witnesses, the device reported', () => {
    const dir = scratchDir();
    const r = rng(33);
    writeXyz(`${dir}/a.xyz`, uniform(5000, 3, r));
    writeXyz(`${dir}/b.xyz`, uniform(5000, 3, r));
    const out = runXhd(['compare', `${dir}/a.xyz`, `${dir}/b.xyz`, '--backend', 'optix', '--json']);
    assert.equal(out.code, 0, out.stderr);
    const json = JSON.parse(out.stdout);
    assert.equal(json.backend, 'optix');
    assert.match(json.device.name, /\S/);
    const cpu = JSON.parse(runXhd(['compare', `${dir}/a.xyz`, `${dir}/b.xyz`, '--backend', 'cpu', '--json']).stdout);
    assert.equal(json.hd, cpu.hd);
    assert.deepEqual([json.witness_ab, json.witness_ba], [cpu.witness_ab, cpu.witness_ba]);
  });

  it('xhd doctor shows the OptiX version and the RT cores', () => {
    const json = JSON.parse(runXhd(['doctor', '--json']).stdout);
    const status = json.backends.find((s: { name: string }) => s.name === 'optix');
    assert.equal(status.available, true);
    assert.match(status.optix.version, /^\d+\.\d+\.\d+$/);
    assert.equal(typeof status.optix.rtcore_version, 'number');
    assert.match(runXhd(['doctor']).stdout, /OptiX \d+\.\d+\.\d+ · RT cores /);
  });
});

describe('the OptiX backend where it cannot run (any machine)', () => {
  it('--backend optix without its library: one line naming the library and the fix, exit 3; auto never needs it', () => {
    const dir = scratchDir();
    const r = rng(40);
    writeXyz(`${dir}/a.xyz`, uniform(50, 3, r));
    writeXyz(`${dir}/b.xyz`, uniform(50, 3, r));
    // A library folder with the CPU library only (the file readers need it).
    symlinkSync(join(libraryDir(), 'libxhd_cpu.so'), `${dir}/libxhd_cpu.so`);
    const forced = runXhd(['compare', `${dir}/a.xyz`, `${dir}/b.xyz`, '--backend', 'optix'], { XHD_LIBRARY_DIR: dir });
    assert.equal(forced.code, 3);
    assert.match(forced.stderr, /the native optix library is missing: .*libxhd_optix\.so/);
    assert.match(forced.stderr, /OPTIX_ROOT/);
    const auto = runXhd(['compare', `${dir}/a.xyz`, `${dir}/b.xyz`, '--json'], { XHD_LIBRARY_DIR: dir });
    assert.equal(auto.code, 0, auto.stderr);
    assert.equal(JSON.parse(auto.stdout).backend, 'cpu');
  });

  it('doctor lists optix with the reason it is unavailable when it is', () => {
    const json = JSON.parse(runXhd(['doctor', '--json']).stdout);
    const status = json.backends.find((s: { name: string }) => s.name === 'optix');
    assert.ok(status, 'no optix entry');
    if (!status.available) assert.match(status.reason, /\S/);
    else assert.equal(status.reason, null);
  });
});
