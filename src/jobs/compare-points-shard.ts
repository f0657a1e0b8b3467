// One shard of `xhd compare --shard I/N` on two point sets: this shard's slice of A's points searched against
// all of B, and its slice of B's against all of A (each a directed search of the whole target), so that
// `xhd merge` can put the exact answer together from the parts.
import { sliceOf, type Shard } from '../core/shard.js';
import { countOf } from '../core/counts.js';
import { type Geometry } from '../io/geometry.js';
import { type Progress } from '../core/progress.js';
import { hasFaces } from '../ops/surface-compare.js';
import { pointsSearch, type PointsSearchResult } from '../ops/points-search.js';
import { maskSpaceWarning, resultBase, timings, wantsStats, type CompareOptions, type CompareResult, type DirectionSlice, type ShardPart } from './compare-result.js';

function pointAt(g: Geometry, index: number): number[] {
  const p = [g.positions[3 * index], g.positions[3 * index + 1], g.positions[3 * index + 2]];
  return g.dims === 2 ? p.slice(0, 2) : p;
}

interface MeasuredSlice {
  slice: DirectionSlice;
  search: PointsSearchResult | null;
}

/** The shard's queries of `from` against every point of `to`, directed; nothing to search for an empty slice. */
async function measureSlice(from: Geometry, to: Geometry, shard: Shard, options: CompareOptions, bar: Progress, phase: [number, number]): Promise<MeasuredSlice> {
  const { start, end } = sliceOf(from.count, shard);
  if (start === end) return { slice: { start, end, max: null, distances: null }, search: null };
  bar.phase(wantsStats(options) ? 'hausdorff, every point' : 'hausdorff', phase[0], phase[1]);
  // subarray: a view, not a copy; the native call reads the slice's own bytes.
  const search = await pointsSearch(from.positions.subarray(3 * start, 3 * end), to.positions, {
    method: options.method,
    directed: true,
    backend: options.backend,
    device: options.device,
    threads: options.threads,
    seed: options.seed,
    signal: options.signal,
    distances: wantsStats(options),
    onProgress: (done, total) => bar.update(done, total),
  });
  const fromIndex = start + search.ab.fromIndex; // the search numbers the slice from 0
  const witness = { fromIndex, fromPoint: pointAt(from, fromIndex), toIndex: search.ab.toIndex, toPoint: pointAt(to, search.ab.toIndex) };
  return { slice: { start, end, max: { distance: search.ab.distance, witness }, distances: search.perPoint?.ab.distances ?? null }, search };
}

export async function comparePointsShard(pathA: string, pathB: string, a: Geometry, b: Geometry, options: CompareOptions & { shard: Shard },
                                         bar: Progress, started: number, readMs: number): Promise<CompareResult> {
  let ab: MeasuredSlice, ba: MeasuredSlice | null = null;
  try {
    ab = await measureSlice(a, b, options.shard, options, bar, options.directed ? [0, 1] : [0, 0.5]);
    if (!options.directed) ba = await measureSlice(b, a, options.shard, options, bar, [0.5, 1]);
  } finally {
    bar.finish(); // an error message must not land on the bar's line
  }
  const searches = [ab.search, ba?.search].filter((s): s is PointsSearchResult => s !== null && s !== undefined);
  const first = searches[0];
  const shardPart: ShardPart = { shard: options.shard, ab: ab.slice, ba: ba ? ba.slice : null, merge: { stats: wantsStats(options) } };
  const sum = (f: (s: PointsSearchResult) => number) => searches.reduce((t, s) => t + f(s), 0);

  const notes: string[] = maskSpaceWarning(a, b);
  for (const [name, g] of [['A', a], ['B', b]] as const) {
    if (hasFaces(g)) notes.push(`${name} is a mesh (${countOf(g.triangles!.length / 3, 'triangle')}): its ${countOf(g.count, 'vertex', 'vertices')} are compared as points (--vertices-only)`);
    for (const n of g.notes) notes.push(`${name}: ${n}`);
  }
  const hdAb = ab.slice.max?.distance ?? Number.NaN;
  const hdBa = ba ? ba.slice.max?.distance ?? Number.NaN : null;
  return {
    ...resultBase('points', pathA, a, pathB, b, options),
    // The slices' own maxima; the whole pair's come from `xhd merge`.
    hd: hdBa === null ? hdAb : Math.max(hdAb, hdBa),
    hdAb,
    hdBa,
    witnessAb: ab.slice.max?.witness ?? null,
    witnessBa: ba?.slice.max?.witness ?? null,
    method: options.method,
    backend: first?.backend ?? 'none',
    threads: first?.threads ?? 0,
    device: first?.device ?? null,
    peakDeviceBytes: Math.max(0, ...searches.map((s) => s.peakDeviceBytes)),
    queryChunks: sum((s) => s.queryChunks),
    coordinateOrigin: first?.coordinateOrigin ?? [0, 0, 0],
    timingsMs: timings(started, readMs, {
      upload: sum((s) => s.uploadMs),
      build: sum((s) => s.ab.buildMs),
      query: sum((s) => s.ab.queryMs),
      download: sum((s) => s.downloadMs),
    }),
    notes,
    shardPart,
  };
}
