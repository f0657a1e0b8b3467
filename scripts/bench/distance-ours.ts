// Timing our mesh distance in-process, as a user of the library runs it: MeshDistance.create builds both
// hierarchies once, then one query per frame poses B and measures (or, --calls many, queryMany answers every
// frame in one native call, as `xhd distance --frames` does).
import { MeshDistance, type DistanceQuery } from '../../src/ops/mesh-distance.js';
import type { OursScene } from './distance-coordinates.js';
import type { DistanceCalls } from './distance-settings.js';
import { doneOutcome, mean, type DistanceOutcome, type Frames } from './distance-outcome.js';

/**
 * Builds, answers the last frame once untimed (warm-up: not frame 0, which on the CPU would then start from
 * its own answer, as every query starts from the last one's), then every frame in order. A frame's time is the library's own:
 * query + upload + download ms (the upload and download are 0 on the CPU). timeoutS bounds the whole
 * measurement; a query under way when it passes is cancelled.
 */
export async function measureOurs(scene: OursScene, backend: 'cpu' | 'cuda', s: { threads: number; timeoutS: number; calls: DistanceCalls }): Promise<DistanceOutcome> {
  const start = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), s.timeoutS * 1000);
  const frames: Frames = { frameMs: [], distances: [] };
  const wallMs: number[] = [], boxPairs: number[] = [], trianglePairs: number[] = [], transferMs: number[] = [];
  let context: MeshDistance | undefined;
  try {
    context = await MeshDistance.create(scene.a, scene.b, { min: scene.measure === 'min', max: scene.measure === 'max', backend, threads: s.threads });
    await context.query(scene.poses[scene.poses.length - 1], controller.signal);
    const take = (r: DistanceQuery, wall: number) => {
      wallMs.push(wall);
      frames.frameMs.push(r.queryMs + r.uploadMs + r.downloadMs);
      frames.distances.push((scene.measure === 'min' ? r.min : r.max)!.distance);
      boxPairs.push(r.boxPairs), trianglePairs.push(r.trianglePairs), transferMs.push(r.uploadMs + r.downloadMs);
    };
    if (s.calls === 'many') {
      const poses = new Float64Array(12 * scene.poses.length);
      scene.poses.forEach((pose, i) => poses.set(pose, 12 * i));
      const t0 = performance.now();
      const answers = await context.queryMany(poses, { signal: controller.signal });
      const wall = (performance.now() - t0) / answers.length;  // the call's wall, shared out
      for (const r of answers) take(r, wall);
    } else {
      for (const pose of scene.poses) {
        const t0 = performance.now();
        const r = await context.query(pose, controller.signal);
        take(r, performance.now() - t0);
      }
    }
    return doneOutcome(frames, context.buildMs, performance.now() - start, {
      wallMs: mean(wallMs), boxPairs: mean(boxPairs), trianglePairs: mean(trianglePairs), transferMs: mean(transferMs),
    });
  } catch (err) {
    if (controller.signal.aborted) return { kind: 'timeout', buildMs: context?.buildMs, ...frames };
    return { kind: 'failed', why: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
    context?.close();
  }
}
