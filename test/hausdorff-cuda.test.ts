// The CUDA backend against the CPU: the agreement cases of the CPU suite (against the double-precision
// brute force, bit for bit with witnesses), survey coordinates with near-ties and exact ties, sets of 1M to
// 10M points (against the CPU grid, itself exact), adversarial layouts, the chunked path and its memory
// errors. Skips where no CUDA GPU is usable.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { probeBackend } from '../src/ops/backends.js';
import { NativeError, UsageError } from '../src/core/errors.js';
import { hausdorff, type HausdorffResult, type Method } from '../src/ops/hausdorff.js';
import { pointsSearch } from '../src/ops/points-search.js';
import { AGREEMENT_CASES as cases } from './agreement-cases.js';
import { assertExact, utmExactTies, utmNearTies, utmShiftedTile } from './exact-cases.js';
import { runXhd, scratchDir, writeXyz } from './cli-run.js';
import { clustered, firstCopies, rng, shifted, uniform, withCopiesOf, withDuplicates } from './random-points.js';
import { assertChunkedLikeCpu } from './chunked-cuda.js';
import { withEnv } from './reader-test-tools.js';
import { suiteUnless } from './skippable-suite.js';
import { splitLists, withSplitBy } from './split-lists.js';

const cuda = probeBackend('cuda');
const skip = cuda.available ? false : `no usable CUDA GPU (${(cuda.reason ?? '').split('\n')[0]})`;

/** Workers the X-HD checks also split among (--devices), asked to split by space (by queries where the data does not allow it). */
const splits = splitLists([[0, 0]]);

/**
 * The GPU's answer equals the reference (an exact CPU method) bit for bit, witnesses included; the grid
 * method's also when its search is split among the workers of `splits`.
 */
async function checkCuda(label: string, a: Float32Array | Float64Array, b: Float32Array | Float64Array,
  reference: HausdorffResult, methods: Method[] = ['grid', 'eb']) {
  const runs: Array<[string, () => Promise<HausdorffResult>]> = [];
  for (const method of methods) {
    runs.push([method, () => hausdorff(a, b, { method, backend: 'cuda' })]);
    if (method === 'grid') {
      for (const devices of splits) {
        runs.push([`grid on ${devices}`, () => withSplitBy('space', () => pointsSearch(a, b, { method, backend: 'cuda', devices }))]);
      }
    }
  }
  for (const [what, run] of runs) {
    const r = await run();
    assert.equal(r.backend, 'cuda');
    for (const [got, want, name] of [[r.ab, reference.ab, 'A→B'], [r.ba!, reference.ba!, 'B→A']] as const) {
      assert.deepEqual([got.distance, got.fromIndex, got.toIndex], [want.distance, want.fromIndex, want.toIndex],
        `${label} cuda ${what} ${name}`);
    }
  }
}

/** Every point within a box of side 1e-6 (one grid cell, a heavy one), plus one point far away. */
function oneCellAndOutlier(n: number, random: () => number): Float32Array {
  const p = uniform(n, 3, random, 0.5, 1e-6);
  p.set([40, -3, 7], 3 * (n - 1));
  return p;
}

suiteUnless(skip, 'CUDA backend agrees with the double-precision brute force', () => {
  for (const dims of [3, 2] as const) {
    for (const c of cases) {
      for (const n of [1, 17, 1000, 12000]) {
        it(`${c.name}, ${dims}D, ${n} points`, async () => {
          const [a, b] = c.make(n, dims, 1000 * n + dims);
          await checkCuda(`${c.name} ${dims}D n=${n}`, a, b, await hausdorff(a, b, { method: 'brute' }));
        });
      }
    }
  }

  it('every point identical, and A = B', async () => {
    const a = new Float32Array(3 * 500).fill(0.25);
    const b = new Float32Array(3 * 300).fill(0.75);
    await checkCuda('all identical', a, b, await hausdorff(a, b, { method: 'brute' }));
    const c = clustered(5000, 3, rng(11));
    for (const method of ['grid', 'eb'] as const) assert.equal((await hausdorff(c, c.slice(), { method, backend: 'cuda' })).hd, 0);
  });

  it('copies of a point cost what their first copies cost, with the same witnesses (issue 30)', async () => {
    // A's 100k copies lie outside B's box and are A → B's witness (each copy used to survive to the double
    // pass); B's 100k copies crowd one cell of A's queries' index (a heavy cell every nearby query scanned).
    const a = withCopiesOf(uniform(3000, 3, rng(40)), [3, 3, 3], 100_000, 1000);
    const b = withCopiesOf(uniform(4000, 3, rng(41)), [0.25, 0.25, 0.25], 100_000, 2000);
    const reference = await hausdorff(a, b, { method: 'grid', backend: 'cpu' }); // exact (duplicates.test.ts)
    assert.equal(reference.ab.fromIndex, 1000);
    await checkCuda('copies of a point', a, b, reference);
    const work = (r: HausdorffResult) => [r.ab.distanceEvals + r.ba!.distanceEvals, r.ab.exactChecks + r.ba!.exactChecks];
    for (const method of ['grid', 'eb'] as const) {
      const [evals, checks] = work(await hausdorff(a, b, { method, backend: 'cuda' }));
      const [uniqueEvals, uniqueChecks] = work(await hausdorff(firstCopies(a), firstCopies(b), { method, backend: 'cuda' }));
      // The searches race on cmax, so what they cost varies from run to run, but not by 100k copies' worth.
      assert.ok(evals <= 2 * uniqueEvals + 10_000, `${method}: ${evals} distances evaluated, ${uniqueEvals} without the copies`);
      assert.ok(checks <= 2 * uniqueChecks + 100, `${method}: ${checks} exact checks, ${uniqueChecks} without the copies`);
    }
  });

  it('large coordinates with small separations', async () => {
    const a = uniform(3000, 3, rng(3), 1e6, 10);
    for (let i = 0; i < a.length; i += 3) { a[i + 1] += 1e6; a[i + 2] -= 1e6; }
    const b = shifted(a, 0.125);
    await checkCuda('offset by 1e6', a, b, await hausdorff(a, b, { method: 'brute' }));
  });

  it('one crowded cell and a far outlier (heavy-cell kernel)', async () => {
    const r = rng(21);
    const a = oneCellAndOutlier(20_000, r), b = oneCellAndOutlier(20_000, r);
    b.set([0.5, 0.5, 0.5], 0);
    await checkCuda('one cell', a, b, await hausdorff(a, b, { method: 'brute' }));
  });
});

suiteUnless(skip, 'CUDA backend is exact over survey coordinates', () => {
  const cases: Array<[string, () => [Float64Array, Float64Array]]> = [
    ['a 100 m tile and its copy moved 12 mm (every query survives; scanned on the device)', () => utmShiftedTile(3000, 1)],
    ['the same in 2D', () => utmShiftedTile(3000, 2, 2)],
    ['near-ties below float32 resolution', () => utmNearTies(2000, 3)],
    ['exact ties: every nearest distance is 1/8', () => utmExactTies(2000, 5)],
  ];
  for (const [name, make] of cases) {
    it(name, async () => {
      const [a, b] = make();
      for (const method of ['grid', 'eb'] as const) {
        const r = await hausdorff(a, b, { method, backend: 'cuda' });
        assertExact(r, a, b, `${name}, cuda ${method}`);
        assert.deepEqual(r.coordinateOrigin, (await hausdorff(a, b, { method: 'grid', backend: 'cpu' })).coordinateOrigin);
      }
      for (const devices of splits) {
        assertExact(await withSplitBy('space', () => pointsSearch(a, b, { backend: 'cuda', devices })), a, b, `${name}, cuda on ${devices}`);
      }
    });
  }

  it('400k survivors (a shifted copy): settled on the device with the doubles uploaded, equal to the CPU', async () => {
    const [a, b] = utmShiftedTile(400_000, 6);
    const reference = await hausdorff(a, b, { method: 'grid', backend: 'cpu' });
    assert.ok(reference.ab.exactChecks > 300_000, `survivors ${reference.ab.exactChecks}`);
    await checkCuda('shifted copy 400k', a, b, reference, ['grid']);
    await checkCuda('shifted copy 400k, float32', Float32Array.from(a), Float32Array.from(b),
      await hausdorff(Float32Array.from(a), Float32Array.from(b), { method: 'grid', backend: 'cpu' }), ['grid']);
  });

  it('survivors with a reach too wide for grid stepping settle down the tree, or are scanned, or settled on the host grid', async () => {
    const [a, b0] = utmNearTies(3000, 9);
    const b = b0.map((v, i) => (i % 3 === 0 ? v + 2000 : v)); // far apart: every reach spans the whole grid
    const reference = await hausdorff(a, b, { method: 'grid', backend: 'cpu' });
    await checkCuda('far apart, down the tree', a, b, reference);
    // Without the tree (XHD_CUDA_REFINE_TREE=0, exact_refine.cu): the scan of every target, and past the
    // scan limit the host's grid, the fallbacks of a descent deeper than the tree's stack.
    process.env.XHD_CUDA_REFINE_TREE = '0';
    try {
      await checkCuda('far apart, scanned', a, b, reference);
      process.env.XHD_CUDA_MAX_SCAN_PAIRS = '0';
      await checkCuda('far apart, host grid', a, b, reference);
    } finally {
      delete process.env.XHD_CUDA_REFINE_TREE;
      delete process.env.XHD_CUDA_MAX_SCAN_PAIRS;
    }
  });

  it('the chunked path settles survivors from every chunk', async () => {
    const [a, partners] = utmNearTies(400_000, 7);
    const b = partners.slice(0, 3 * 50_000); // a target that fits the budget; the source does not
    await assertChunkedLikeCpu(a, b);
  });
});

suiteUnless(skip, 'CUDA backend through the CLI at survey coordinates', () => {
  it('text files: the same hd, witnesses and statistics as the CPU; surface mode measures what it does at the origin', () => {
    const dir = scratchDir();
    const [a, b] = utmNearTies(3000, 12);
    const text = (p: Float64Array) => Array.from({ length: p.length / 3 }, (_, i) => `${p[3 * i]} ${p[3 * i + 1]} ${p[3 * i + 2]}`).join('\n') + '\n';
    writeFileSync(`${dir}/a.xyz`, text(a));
    writeFileSync(`${dir}/b.xyz`, text(b));
    const run = (args: string[]) => {
      const r = runXhd([...args, '--json']);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const gpu = run(['compare', `${dir}/a.xyz`, `${dir}/b.xyz`, '--backend', 'cuda', '--stats']);
    const cpu = run(['compare', `${dir}/a.xyz`, `${dir}/b.xyz`, '--backend', 'cpu', '--stats']);
    assert.equal(gpu.backend, 'cuda');
    for (const key of ['hd', 'hd_ab', 'hd_ba', 'assd', 'witness_ab', 'witness_ba', 'coordinate_origin']) assert.deepEqual(gpu[key], cpu[key], key);

    const sphere = (r: number, offset: number[]) => {
      const lines: string[] = [];
      const rings = 24, segments = 48;
      for (let i = 0; i <= rings; i++) for (let j = 0; j < segments; j++) {
        const t = (Math.PI * i) / rings, f = (2 * Math.PI * j) / segments;
        lines.push(`${offset[0] + r * Math.sin(t) * Math.cos(f)} ${offset[1] + r * Math.sin(t) * Math.sin(f)} ${offset[2] + r * Math.cos(t)}`);
      }
      const faces: string[] = [];
      for (let i = 0; i < rings; i++) for (let j = 0; j < segments; j++) {
        const k = i * segments + j, n = i * segments + ((j + 1) % segments);
        faces.push(`3 ${k} ${n} ${n + segments}`, `3 ${k} ${n + segments} ${k + segments}`);
      }
      return `OFF\n${lines.length} ${faces.length} 0\n${lines.join('\n')}\n${faces.join('\n')}\n`;
    };
    for (const [name, offset] of [['near', [0, 0, 0]], ['far', [500_000, 4_200_000, 100]]] as const) {
      writeFileSync(`${dir}/${name}-inner.off`, sphere(1, [...offset]));
      writeFileSync(`${dir}/${name}-outer.off`, sphere(1.01, [...offset]));
    }
    const near = run(['compare', `${dir}/near-inner.off`, `${dir}/near-outer.off`, '--backend', 'cuda', '--samples', '20000']);
    const far = run(['compare', `${dir}/far-inner.off`, `${dir}/far-outer.off`, '--backend', 'cuda', '--samples', '20000']);
    assert.equal(far.backend, 'cuda');
    assert.ok(Math.abs(far.hd - near.hd) <= 1e-6, `far ${far.hd}, near ${near.hd}`);
  });
});

suiteUnless(skip, 'CUDA backend on 1M to 10M points agrees with the CPU grid', () => {
  const big: Array<[string, () => [Float32Array, Float32Array]]> = [
    ['uniform overlapping 1M, 3D', () => { const a = uniform(1_000_000, 3, rng(1)); return [a, shifted(a, 0.005)]; }],
    ['clustered 2M, 3D', () => { const r = rng(2); return [clustered(2_000_000, 3, r), clustered(2_000_000, 3, r)]; }],
    ['uniform 4M, 2D', () => { const r = rng(4); return [uniform(4_000_000, 2, r), uniform(4_000_000, 2, r)]; }],
    ['disjoint 1M', () => { const r = rng(5); return [uniform(1_000_000, 3, r), uniform(1_000_000, 3, r, 2.5)]; }],
    ['one crowded cell and a far outlier, 1M', () => { const r = rng(6); return [oneCellAndOutlier(1_000_000, r), oneCellAndOutlier(1_000_000, r)]; }],
    ['exact duplicates, 1M', () => { const r = rng(7); const a = withDuplicates(uniform(250_000, 3, r), 4, r); return [a, uniform(1_000_000, 3, r)]; }],
    ['A = B, 1M', () => { const a = clustered(1_000_000, 3, rng(8)); return [a, a.slice()]; }],
    ['uniform overlapping 10M, 3D', () => { const a = uniform(10_000_000, 3, rng(10)); return [a, shifted(a, 0.005)]; }],
  ];
  for (const [name, make] of big) {
    it(name, async () => {
      const [a, b] = make();
      const reference = await hausdorff(a, b, { method: 'grid', backend: 'cpu' });
      await checkCuda(name, a, b, reference, ['grid']);
    });
  }
});

// The grid search starts its radius at the nearest distance the warm-up proved (xhd_directed.h,
// seeded_first_radius); XHD_SEEDED_RADIUS=0 starts it at one cell, as before. Both schedules are exact.
suiteUnless(skip, 'CUDA grid search from the seeded first radius and from one cell', () => {
  const fromOneCell = { XHD_SEEDED_RADIUS: '0' };

  for (const dims of [3, 2] as const) {
    for (const c of cases) {
      it(`from one cell: ${c.name}, ${dims}D, 12000 points`, async () => {
        const [a, b] = c.make(12000, dims, 9000 + dims);
        const reference = await hausdorff(a, b, { method: 'brute' });
        await withEnv(fromOneCell, () => checkCuda(`one cell: ${c.name} ${dims}D`, a, b, reference, ['grid']));
      });
    }
  }

  it('from one cell: far apart survey coordinates and disjoint 1M', async () => {
    const [a, b0] = utmNearTies(3000, 9);
    const b = b0.map((v, i) => (i % 3 === 0 ? v + 2000 : v));
    const far = await hausdorff(a, b, { method: 'grid', backend: 'cpu' });
    await withEnv(fromOneCell, () => checkCuda('one cell: far apart', a, b, far, ['grid']));
    const r = rng(5);
    const c = uniform(1_000_000, 3, r), d = uniform(1_000_000, 3, r, 2.5);
    const disjoint = await hausdorff(c, d, { method: 'grid', backend: 'cpu' });
    await withEnv(fromOneCell, () => checkCuda('one cell: disjoint 1M', c, d, disjoint, ['grid']));
  });

  it('a stray point that joins the boxes: the seeded radius needs fewer passes than one cell, same answer', () => {
    // B is A moved 2 on x plus the origin, so the MBRs overlap (their lower bound is 0) while every nearest
    // distance is about 1 to 1.5: from one cell the radius grows over several passes of the open queries.
    const dir = scratchDir();
    const r = rng(44);
    const a = uniform(200_000, 3, r);
    const b = new Float32Array(a.length + 3);
    for (let i = 0; i < a.length; i++) b[i + 3] = i % 3 === 0 ? a[i] + 2 : a[i];
    writeXyz(`${dir}/a.xyz`, a);
    writeXyz(`${dir}/b.xyz`, b);
    const passes = (env: Record<string, string>) => {
      const out = runXhd(['compare', `${dir}/a.xyz`, `${dir}/b.xyz`, '--backend', 'cuda', '--json', '--quiet'],
        { XHD_CUDA_PROFILE: '1', ...env });
      assert.equal(out.code, 0, out.stderr);
      return { count: out.stderr.split('\n').filter((line) => line.startsWith('xhd-profile grid pass')).length, json: JSON.parse(out.stdout) };
    };
    const seeded = passes({}), oneCell = passes(fromOneCell);
    assert.ok(seeded.count >= 2, `${seeded.count} profile lines of grid passes (one a direction at least)`);
    assert.ok(seeded.count < oneCell.count, `seeded: ${seeded.count} passes, from one cell: ${oneCell.count}`);
    for (const key of ['hd', 'hd_ab', 'hd_ba', 'witness_ab', 'witness_ba']) assert.deepEqual(seeded.json[key], oneCell.json[key], key);
  });
});

suiteUnless(skip, 'CUDA memory handling', () => {
  it('a source larger than the memory budget is processed in chunks with the same answer', async () => {
    const r = rng(30);
    const a = uniform(400_000, 3, r), b = uniform(50_000, 3, r);
    const whole = await hausdorff(a, b, { backend: 'cuda', directed: true });
    process.env.XHD_CUDA_MEMORY_LIMIT = String(40 << 20);
    try {
      // Directed: B -> A would need all of A resident as its index, which this budget cannot hold.
      const chunked = await hausdorff(a, b, { backend: 'cuda', directed: true });
      assert.ok(chunked.queryChunks > 1, `expected several chunks, got ${chunked.queryChunks}`);
      assert.ok(chunked.peakDeviceBytes <= 40 << 20, `peak ${chunked.peakDeviceBytes} over the 40 MiB budget`);
      assert.equal(chunked.hd, whole.hd);
      assert.equal(chunked.ab.fromIndex, whole.ab.fromIndex);
    } finally {
      delete process.env.XHD_CUDA_MEMORY_LIMIT;
    }
    assert.ok(whole.peakDeviceBytes > 0);
    assert.equal(whole.queryChunks, 1);
  });

  it('a budget too small even for one tile of the target gives a clear error naming the memory needed', async () => {
    // A target that does not fit is searched in tiles (placement-cuda.test.ts); under 4 MiB not even a tile fits.
    const r = rng(31);
    process.env.XHD_CUDA_MEMORY_LIMIT = String(4 << 20);
    try {
      await assert.rejects(hausdorff(uniform(10, 3, r), uniform(2_000_000, 3, r), { backend: 'cuda' }),
        (err: unknown) => err instanceof NativeError && /needs about [\d.]+ GiB of GPU memory/.test(err.message));
    } finally {
      delete process.env.XHD_CUDA_MEMORY_LIMIT;
    }
  });

  it('--device beyond the GPUs present is a usage error', async () => {
    const r = rng(32);
    await assert.rejects(hausdorff(uniform(10, 3, r), uniform(10, 3, r), { backend: 'cuda', device: 64 }),
      (err: unknown) => err instanceof UsageError && /does not exist/.test(err.message));
  });

  it('xhd compare --backend cuda --json reports the device, timings and peak memory', () => {
    const dir = scratchDir();
    const r = rng(33);
    writeXyz(`${dir}/a.xyz`, uniform(5000, 3, r));
    writeXyz(`${dir}/b.xyz`, uniform(5000, 3, r));
    const out = runXhd(['compare', `${dir}/a.xyz`, `${dir}/b.xyz`, '--backend', 'cuda', '--json']);
    assert.equal(out.code, 0, out.stderr);
    const json = JSON.parse(out.stdout);
    assert.equal(json.backend, 'cuda');
    assert.match(json.device.name, /\S/);
    assert.ok(json.peak_device_memory_bytes > 0);
    for (const k of ['read', 'upload', 'build', 'query', 'download', 'total']) assert.equal(typeof json.timings_ms[k], 'number', k);
    const cpu = JSON.parse(runXhd(['compare', `${dir}/a.xyz`, `${dir}/b.xyz`, '--backend', 'cpu', '--json']).stdout);
    assert.equal(json.hd, cpu.hd, 'cuda vs cpu through the CLI');
    assert.deepEqual(json.witness_ab, cpu.witness_ab);
  });
});

describe('backend choice and xhd doctor (any machine)', () => {
  it('xhd doctor lists the three backends, and a reason or the GPUs for CUDA', () => {
    const out = runXhd(['doctor', '--json']);
    assert.equal(out.code, 0, out.stderr);
    const json = JSON.parse(out.stdout);
    const names = json.backends.map((b: { name: string }) => b.name);
    assert.deepEqual(names, ['cpu', 'cuda', 'optix']);
    const cudaStatus = json.backends[1];
    if (cudaStatus.available) {
      assert.ok(cudaStatus.devices.length > 0);
      assert.match(cudaStatus.devices[0].compute_capability, /^\d+\.\d+$/);
      // Never OptiX: the CUDA grid measured faster on every case (docs/benchmarks.md).
      assert.equal(json.auto_backend, 'cuda');
    } else {
      assert.match(cudaStatus.reason, /\S/);
      assert.equal(json.auto_backend, 'cpu');
    }
  });

  it('xhd doctor with no library at all says auto uses none, exit 3', () => {
    const text = runXhd(['doctor'], { XHD_LIBRARY_DIR: '/nonexistent' });
    assert.equal(text.code, 3, text.stderr);
    assert.match(text.stdout, /--backend auto uses: none /);
    const json = runXhd(['doctor', '--json'], { XHD_LIBRARY_DIR: '/nonexistent' });
    assert.equal(json.code, 3);
    assert.equal(JSON.parse(json.stdout).auto_backend, null);
  });

  it('--backend cuda without a usable GPU is one clear error with exit 3; auto falls back to the CPU', { skip: cuda.available && 'a GPU is present' }, () => {
    const dir = scratchDir();
    const r = rng(40);
    writeXyz(`${dir}/a.xyz`, uniform(50, 3, r));
    writeXyz(`${dir}/b.xyz`, uniform(50, 3, r));
    const forced = runXhd(['compare', `${dir}/a.xyz`, `${dir}/b.xyz`, '--backend', 'cuda']);
    assert.equal(forced.code, 3);
    assert.match(forced.stderr, /^xhd: --backend cuda: no usable GPU: .+xhd doctor/);
    assert.equal(forced.stderr.trim().split('\n').length, 1);
    const auto = runXhd(['compare', `${dir}/a.xyz`, `${dir}/b.xyz`, '--json']);
    assert.equal(auto.code, 0, auto.stderr);
    assert.equal(JSON.parse(auto.stdout).backend, 'cpu');
    assert.equal(JSON.parse(auto.stdout).device, null);
  });
});
