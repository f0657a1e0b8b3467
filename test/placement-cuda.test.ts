// --devices and --memory-limit on the CUDA backend: a compare split among workers, and a target searched in
// tiles, give one GPU's answers bit for bit (witnesses, every point's distance and nearest), which are the
// CPU's. On a one-GPU machine a device listed twice (0,0) runs two workers on it, which exercises the split
// and the merge; on a multi-GPU host set XHD_TEST_DEVICES=all (or a list) to run the same checks across
// GPUs. Skips where no CUDA GPU is usable.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';

import { loadBackend } from '../src/native/library.js';
import { pinInputs } from '../src/native/pinned-inputs.js';
import { probeBackend } from '../src/ops/backends.js';
import { pointsSearch, type PointsSearchResult } from '../src/ops/points-search.js';
import { clustered, rng, uniform, withCopiesOf } from './random-points.js';
import { utmShiftedTile } from './exact-cases.js';
import { hasStackTrace, runXhd, scratchDir, writeBinaryPly, writeXyz } from './cli-run.js';
import { writeNifti } from './nifti-writer.js';
import { suiteUnless } from './skippable-suite.js';
import { withEnv } from './reader-test-tools.js';
import { splitLists, withSplitBy } from './split-lists.js';

const cuda = probeBackend('cuda');
const skip = cuda.available ? false : `no usable CUDA GPU (${(cuda.reason ?? '').split('\n')[0]})`;

/** Worker lists to compare with one GPU: two and three workers on device 0, and any list the machine asks for. */
const workerLists = () => splitLists([[0, 0], [0, 0, 0]]);

function answer(r: PointsSearchResult) {
  return [r.ab.distance, r.ab.fromIndex, r.ab.toIndex, r.ba?.distance, r.ba?.fromIndex, r.ba?.toIndex];
}

/** A cloud whose points repeat one point many times (ties) and whose last point is far away (a loose point). */
function awkward(n: number, seed: number): Float32Array {
  const p = withCopiesOf(clustered(n, 3, rng(seed)), [0.5, 0.5, 0.5], 200, 10);
  p.set([1e7, -3, 7], p.length - 3);
  return p;
}

const inputs: Array<[string, Float32Array | Float64Array, Float32Array | Float64Array]> = [
  ['float32, overlapping', uniform(300_000, 3, rng(81)), uniform(250_000, 3, rng(82), 0.1)],
  ['float32, ties and a far outlier', awkward(200_000, 83), awkward(150_000, 84)],
  ['doubles at survey coordinates', ...utmShiftedTile(200_000, 85)],
];

suiteUnless(skip, 'CUDA --devices: the answers of one GPU', () => {
  for (const [label, a, b] of inputs) {
    for (const method of ['grid', 'eb'] as const) {
      it(`${label}, ${method}: witnesses without per-point outputs`, async () => {
        const one = await pointsSearch(a, b, { backend: 'cuda', method });
        for (const devices of workerLists()) {
          // Asked to split by space, X-HD does unless far outliers (loose points) keep it to queries; EB never does.
          const spatial = await withSplitBy('space', () => pointsSearch(a, b, { backend: 'cuda', method, devices }));
          assert.deepEqual(answer(spatial), answer(one), `${label} ${method} on ${devices}, by space`);
          const bySpace = method === 'grid' && !label.includes('outlier') && spatial.placement.workers > 1 ? ['ab', 'ba'] : [];
          assert.deepEqual(spatial.placement.splitBySpace, bySpace, `${label} ${method} on ${devices}: split by space`);
          // By default (the targets fit every worker) by space where the GPUs make the parts (float32 sets), else by
          // queries.
          const many = await pointsSearch(a, b, { backend: 'cuda', method, devices });
          assert.ok(many.placement.workers >= 1);
          assert.deepEqual(answer(many), answer(one), `${label} ${method} on ${devices}`);
          assert.deepEqual(many.placement.splitBySpace, label.startsWith('float32') ? bySpace : [], `${label} ${method} on ${devices}: the default split`);
        }
      });
    }
    it(`${label}: every point's distance and nearest`, async () => {
      const one = await pointsSearch(a, b, { backend: 'cuda', distances: true, nearest: true });
      const cpu = await pointsSearch(a, b, { backend: 'cpu', distances: true, nearest: true });
      assert.deepEqual(answer(one), answer(cpu));
      for (const devices of workerLists()) {
        const many = await pointsSearch(a, b, { backend: 'cuda', distances: true, nearest: true, devices });
        assert.deepEqual(answer(many), answer(one), `${label} on ${devices}`);
        assert.deepEqual(many.perPoint, one.perPoint, `${label} on ${devices}: per point`);
      }
    });
  }
});

suiteUnless(skip, 'CUDA --devices split by space (XHD_SPLIT_BY=space): a halo too small for the HD', () => {
  // B is A without the points of a ball of radius 0.2: the A -> B HD is about the radius, far beyond the first
  // halo (from the boxes, which coincide, and the spacing), so that direction's answer over the slab parts is
  // not proven and it is searched again split by queries; B -> A is settled by its slabs.
  const a = uniform(200_000, 3, rng(89));
  const kept: number[] = [];
  for (let i = 0; i < a.length; i += 3) {
    if ((a[i] - 0.5) ** 2 + (a[i + 1] - 0.5) ** 2 + (a[i + 2] - 0.5) ** 2 > 0.04) kept.push(a[i], a[i + 1], a[i + 2]);
  }
  const b = Float32Array.from(kept);
  it('the unproven direction is searched again, and every answer is the CPU\'s', async () => {
    const cpu = await pointsSearch(a, b, { backend: 'cpu' });
    assert.ok(cpu.ab.distance > 0.15, `HD A -> B ${cpu.ab.distance}`);
    for (const devices of workerLists()) {
      const many = await withSplitBy('space', () => pointsSearch(a, b, { backend: 'cuda', devices }));
      assert.deepEqual(answer(many), answer(cpu), `on ${devices}`);
      if (many.placement.workers > 1) assert.deepEqual(many.placement.splitBySpace, ['ba'], `on ${devices}`);
    }
  });
});

suiteUnless(skip, 'CUDA --devices split by space: parts made by the GPUs, gathered from the sets, or copied first', () => {
  // Where the float copies are the input's own coordinates (float32 files; doubles on a lattice about the
  // origin), each worker's parts are gathered from the sets by their layout straight into its upload, and its
  // grids name points by the sets' indices; XHD_GATHERED_SLABS=0 copies the parts first (the path of doubles
  // whose copies round), with the grids naming points by the parts' positions. For float32 sets the GPUs make
  // the parts themselves by default (kernels/cuda/slab_exchange.h: each worker a contiguous share of each set,
  // the parts exchanged between the workers' devices); XHD_EXCHANGED_SLABS=0 gathers them from the host's
  // layouts instead. Every way must give the CPU's answer.
  const lattice = (n: number, seed: number, shift: number) => {
    const random = rng(seed);
    return Float64Array.from({ length: 3 * n }, () => Math.floor(random() * 4000) / 64 + shift);
  };
  const cases: Array<[string, Float32Array | Float64Array, Float32Array | Float64Array]> = [
    ['float32, overlapping', uniform(300_000, 3, rng(91)), uniform(250_000, 3, rng(92), 0.1)],
    ['float32, ties', withCopiesOf(uniform(200_000, 3, rng(93)), [0.5, 0.5, 0.5], 300, 7), withCopiesOf(uniform(150_000, 3, rng(94), 0.05), [0.5, 0.5, 0.5], 300, 11)],
    ['doubles on a lattice (copies exact)', lattice(200_000, 95, 1000), lattice(180_000, 96, 1000.5)],
    ['doubles at survey coordinates (copies round: always copied)', ...utmShiftedTile(150_000, 97)],
  ];
  for (const [label, a, b] of cases) {
    it(`${label}: gathered and copied parts give the CPU's witnesses`, async () => {
      const cpu = await pointsSearch(a, b, { backend: 'cpu' });
      for (const devices of workerLists()) {
        const byDefault = await withSplitBy('space', () => pointsSearch(a, b, { backend: 'cuda', devices }));
        const gathered = await withSplitBy('space', () => withEnv({ XHD_EXCHANGED_SLABS: '0' }, () => pointsSearch(a, b, { backend: 'cuda', devices })));
        const copied = await withSplitBy('space', () => withEnv({ XHD_GATHERED_SLABS: '0' }, () => pointsSearch(a, b, { backend: 'cuda', devices })));
        assert.deepEqual(answer(byDefault), answer(cpu), `${label} on ${devices}, by default`);
        assert.deepEqual(answer(gathered), answer(cpu), `${label} on ${devices}, gathered`);
        assert.deepEqual(answer(copied), answer(cpu), `${label} on ${devices}, copied`);
        if (gathered.placement.workers > 1) assert.deepEqual(gathered.placement.splitBySpace, ['ab', 'ba'], `${label} on ${devices}`);
        if (byDefault.placement.workers > 1) assert.deepEqual(byDefault.placement.splitBySpace, ['ab', 'ba'], `${label} on ${devices}, by default`);
      }
    });
  }

  // Page-locked float32 sets start their way to the GPUs before the host frames them (kernels/cuda/early_upload.h);
  // the runs take those copies where the frame kept the sets as they are, and upload again where it did not
  // (duplicates dropped, far outliers left out of the grids).
  const pinnedCases: Array<[string, Float32Array, Float32Array]> = [
    ['overlapping', uniform(400_000, 3, rng(98)), uniform(350_000, 3, rng(99), 0.05)],
    ['ties and a far outlier', awkward(200_000, 102), awkward(150_000, 103)],
    ['copies of points (duplicates dropped)', withCopiesOf(uniform(200_000, 3, rng(104)), [0.5, 0.5, 0.5], 300, 7), uniform(150_000, 3, rng(105), 0.05)],
  ];
  for (const [label, a, b] of pinnedCases) {
    it(`float32 page-locked by the library (xhd_host_pin), ${label}: the same answers, split or not`, async () => {
      const cpu = await pointsSearch(a, b, { backend: 'cpu' });
      const pinned = pinInputs(loadBackend('cuda'), [a, b]);
      assert.ok(pinned.pinned >= 1, `nothing pinned: ${pinned.refused}`);
      try {
        assert.deepEqual(answer(await pointsSearch(a, b, { backend: 'cuda' })), answer(cpu), 'one GPU');
        assert.deepEqual(answer(await pointsSearch(a, b, { backend: 'cuda', method: 'eb' })), answer(cpu), 'one GPU, eb');
        for (const devices of workerLists()) {
          const spatial = await withSplitBy('space', () => pointsSearch(a, b, { backend: 'cuda', devices }));
          assert.deepEqual(answer(spatial), answer(cpu), `on ${devices}, by space`);
          const queries = await withSplitBy('queries', () => pointsSearch(a, b, { backend: 'cuda', devices }));
          assert.deepEqual(answer(queries), answer(cpu), `on ${devices}, by queries`);
          const gathered = await withSplitBy('space', () => withEnv({ XHD_EXCHANGED_SLABS: '0' }, () => pointsSearch(a, b, { backend: 'cuda', devices })));
          assert.deepEqual(answer(gathered), answer(cpu), `on ${devices}, by space with the host's layouts`);
        }
      } finally {
        pinned.unpin();
      }
    });
  }

  it('page-locked float32 with a bad coordinate: the GPUs\' scans of the early copies leave it to the host, which names it', async () => {
    const a = uniform(300_000, 3, rng(106)), b = uniform(300_000, 3, rng(107), 0.02);
    b[3 * 250_001 + 1] = Number.NaN;
    a[3 * 123_456 + 2] = 3e15;
    const pinned = pinInputs(loadBackend('cuda'), [a, b]);
    assert.ok(pinned.pinned >= 1, `nothing pinned: ${pinned.refused}`);
    try {
      for (const devices of [undefined, ...workerLists()]) {
        await assert.rejects(withSplitBy('space', () => pointsSearch(a, b, { backend: 'cuda', devices })),
          /point 123456 of set A has a coordinate beyond \+-1e15/, `on ${devices ?? 'one GPU'}`);
      }
      a[3 * 123_456 + 2] = 0.5;
      for (const devices of [undefined, ...workerLists()]) {
        await assert.rejects(withSplitBy('space', () => pointsSearch(a, b, { backend: 'cuda', devices })),
          /point 250001 of set B has a non-finite coordinate/, `on ${devices ?? 'one GPU'}`);
      }
    } finally {
      pinned.unpin();
    }
  });

  it('arrays side by side on one page: each pinned on its own, and one left unpinned beside a pinned one', async () => {
    // B starts mid-page where A ends. xhd_host_pin once widened A's range to whole pages: the driver then took B's
    // first bytes for page-locked memory, refused to pin B, and failed every copy of B ("invalid argument", found
    // on an H200 at stop 55). Each range is now registered as it is. B is above the 8 MiB from which pinned memory
    // is copied without staging.
    const nA = 300_001, nB = 800_000;
    const buffer = new ArrayBuffer(12 * (nA + nB));
    const a = new Float32Array(buffer, 0, 3 * nA), b = new Float32Array(buffer, 12 * nA, 3 * nB);
    a.set(uniform(nA, 3, rng(108)));
    b.set(uniform(nB, 3, rng(109), 0.05));
    assert.notEqual((12 * nA) % 4096, 0, 'B starts inside a page of A');
    const cpu = await pointsSearch(a, b, { backend: 'cpu' });
    const check = async (what: string) => {
      for (const devices of [undefined, ...workerLists()]) {
        assert.deepEqual(answer(await pointsSearch(a, b, { backend: 'cuda', devices })), answer(cpu), `${what}, on ${devices ?? 'one GPU'}`);
        assert.deepEqual(answer(await withSplitBy('space', () => pointsSearch(a, b, { backend: 'cuda', devices }))), answer(cpu), `${what}, on ${devices ?? 'one GPU'}, by space`);
      }
    };
    const onlyA = pinInputs(loadBackend('cuda'), [a]);
    try {
      assert.equal(onlyA.pinned, 1, onlyA.refused);
      await check('A pinned, B beside it not');
    } finally {
      onlyA.unpin();
    }
    const both = pinInputs(loadBackend('cuda'), [a, b]);
    try {
      assert.deepEqual([both.pinned, both.refused], [2, ''], 'both pinned');
      await check('both pinned');
    } finally {
      both.unpin();
    }
  });

  it('a worker lost while the parts are exchanged fails the call naming it; the others do not wait for ever', () => {
    const dir = scratchDir();
    const pa = join(dir, 'a.ply'), pb = join(dir, 'b.ply');
    writeBinaryPly(pa, uniform(200_000, 3, rng(100)));
    writeBinaryPly(pb, uniform(200_000, 3, rng(101), 0.02));
    for (const failing of ['0', '1']) {
      const run = runXhd(['compare', pa, pb, '--backend', 'cuda', '--json', '--devices', '0,0'], { XHD_SPLIT_BY: 'space', XHD_TEST_FAIL_WORKER: failing });
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, new RegExp(`worker ${Number(failing) + 1} of 2\\) failed: fault injected`));
      assert.equal(run.stdout, '');
      assert.ok(!hasStackTrace(run.stderr));
    }
  });
});

suiteUnless(skip, 'CUDA --memory-limit: a target in tiles, exactly', () => {
  for (const [label, a, b] of inputs) {
    it(`${label}: a 24 MiB limit cuts the target into tiles and changes nothing`, async () => {
      const cpu = await pointsSearch(a, b, { backend: 'cpu', distances: true, nearest: true });
      for (const devices of [undefined, [0, 0]]) {
        const tiled = await pointsSearch(a, b, { backend: 'cuda', distances: true, nearest: true, memoryLimit: 24 << 20, devices });
        assert.ok(tiled.placement.targetTiles > 2, `expected several tiles, got ${tiled.placement.targetTiles}`);
        assert.ok(tiled.peakDeviceBytes <= 24 << 20, `peak ${tiled.peakDeviceBytes} over the limit`);
        assert.deepEqual(answer(tiled), answer(cpu), `${label} on ${devices ?? 'one worker'}`);
        assert.deepEqual(tiled.perPoint, cpu.perPoint, `${label}: per point`);
      }
    });
    it(`${label}: the Hausdorff search falls back to tiles when the target does not fit`, async () => {
      const whole = await pointsSearch(a, b, { backend: 'cuda' });
      for (const devices of [undefined, [0, 0]]) {
        const tiled = await pointsSearch(a, b, { backend: 'cuda', memoryLimit: 16 << 20, devices });
        assert.ok(tiled.placement.targetTiles > 1, `expected tiles, got ${tiled.placement.targetTiles}`);
        assert.deepEqual(answer(tiled), answer(whole), `${label} on ${devices ?? 'one worker'}`);
      }
    });
  }

  it('a limit too small even for one tile is a clear error naming the memory needed', async () => {
    const a = uniform(10_000, 3, rng(86));
    await assert.rejects(pointsSearch(a, a, { backend: 'cuda', memoryLimit: 1 << 20 }),
      (err: unknown) => err instanceof Error && /needs about [\d.]+ GiB of GPU memory/.test(err.message));
  });
});

suiteUnless(skip, 'CUDA --devices on the command line', () => {
  const dir = scratchDir();
  const pa = join(dir, 'a.xyz'), pb = join(dir, 'b.xyz');
  writeXyz(pa, uniform(200_000, 3, rng(87)));
  writeXyz(pb, uniform(150_000, 3, rng(88), 0.2));

  it('--devices 0,0 and --memory-limit give the JSON of one GPU', () => {
    const one = runXhd(['compare', pa, pb, '--backend', 'cuda', '--json', '--stats']);
    assert.equal(one.code, 0, one.stderr);
    for (const extra of [['--devices', '0,0'], ['--memory-limit', '24M'], ['--devices', '0,0', '--memory-limit', '24M']]) {
      const split = runXhd(['compare', pa, pb, '--backend', 'cuda', '--json', '--stats', ...extra]);
      assert.equal(split.code, 0, split.stderr);
      const o = JSON.parse(one.stdout), s = JSON.parse(split.stdout);
      for (const key of ['hd', 'hd_ab', 'hd_ba', 'witness_ab', 'witness_ba', 'mean_ab', 'mean_ba', 'hd95']) assert.deepEqual(s[key], o[key], `${extra.join(' ')}: ${key}`);
    }
  });

  it('a device that does not exist is exit 2 naming it', () => {
    const run = runXhd(['compare', pa, pb, '--backend', 'cuda', '--devices', '0,63', '--quiet']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /device 63 does not exist/);
  });

  it('a worker that fails mid-run fails the run (exit 3) naming its device, with nothing on stdout', () => {
    for (const perPoint of [[], ['--stats']]) {
      const run = runXhd(['compare', pa, pb, '--backend', 'cuda', '--json', '--devices', '0,0', ...perPoint], { XHD_TEST_FAIL_WORKER: '1' });
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /device 0 \(worker 2 of 2\) failed: fault injected/);
      assert.equal(run.stdout, '');
      assert.ok(!hasStackTrace(run.stderr));
    }
  });

  it('a batch spread over --devices 0,0 gives the outcomes of one GPU, in manifest order', () => {
    const lines = ['a,b'];
    for (let k = 0; k < 12; k++) {
      const p = join(dir, `p${k}.xyz`);
      writeXyz(p, uniform(5_000 + 1000 * k, 3, rng(90 + k), 0.01 * k));
      lines.push(`${k % 2 ? pa : p},${p}`);
    }
    const manifest = join(dir, 'pairs.csv');
    writeFileSync(manifest, lines.join('\n') + '\n');
    const one = runXhd(['batch', manifest, '--backend', 'cuda', '--quiet']);
    const spread = runXhd(['batch', manifest, '--backend', 'cuda', '--quiet', '--devices', '0,0']);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(spread.code, 0, spread.stderr);
    // Each record's line, pair, status and answers, and the summary's counts (not the times).
    const strip = (text: string) => text.trim().split('\n').map((l) => {
      const o = JSON.parse(l);
      if (o.summary) return JSON.stringify({ pairs: o.summary.pairs, passed: o.summary.passed, unchecked: o.summary.unchecked, errors: o.summary.errors });
      return JSON.stringify({ line: o.line, pair: o.pair, status: o.status, hd: o.hd, witness_ab: o.witness_ab, witness_ba: o.witness_ba });
    });
    assert.deepEqual(strip(spread.stdout), strip(one.stdout));
  });

  it('a batch of masks runs four lanes on the GPU by default, with the outcomes of one lane, in manifest order', () => {
    const lines = ['a,b'];
    for (let k = 0; k < 10; k++) {
      const mask = (name: string, shift: number) => {
        const n = 12, values = new Array(n * n * n).fill(0);
        for (let z = 2; z < 9; z++) for (let y = 2; y < 9; y++) for (let x = 2 + shift; x < 9 + shift; x++) values[x + n * (y + n * z)] = 1;
        const path = join(dir, name);
        writeNifti(path, { dims: [n, n, n], values });
        return path;
      };
      lines.push(`${mask(`m${k}a.nii`, 0)},${mask(`m${k}b.nii`, k % 3)}`);
    }
    const manifest = join(dir, 'masks.csv');
    writeFileSync(manifest, lines.join('\n') + '\n');
    const lanes = runXhd(['batch', manifest, '--backend', 'cuda', '--quiet', '--percentile', '95']);
    const one = runXhd(['batch', manifest, '--backend', 'cuda', '--quiet', '--percentile', '95', '--lanes', '1']);
    assert.equal(lanes.code, 0, lanes.stderr);
    assert.equal(one.code, 0, one.stderr);
    const strip = (text: string) => text.trim().split('\n').slice(0, -1).map((l) => {
      const o = JSON.parse(l);
      return JSON.stringify({ line: o.line, status: o.status, hd: o.hd, hd95: o.hd95, witness_ab: o.witness_ab, witness_ba: o.witness_ba });
    });
    assert.deepEqual(strip(lanes.stdout), strip(one.stdout));
    assert.deepEqual(strip(one.stdout).map((l) => JSON.parse(l).hd), [0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
  });
});
