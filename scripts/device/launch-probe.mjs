// Measuring aid (not a test): one query a call on a GPU context, from Node's worker threads (query(), as the
// library's users call it) against the same native function called synchronously on the main thread, to see how much
// of a small search's frame the call's thread costs. Usage: node scripts/device/launch-probe.mjs [scene] [triangles]
// after `npx tsc`; with XHD_CUDA_PROFILE=1 the library prints each launch call's time to stderr, and this marks
// where each way begins there ("probe: <way>").
import { MeshDistance } from '../../dist/src/ops/mesh-distance.js';
import { makeDistanceScene } from '../../dist/scripts/bench/distance-scenes.js';

const [name = 'clusters', triangles = '1000000'] = process.argv.slice(2);
const scene = makeDistanceScene(name, Number(triangles), 20);
const context = await MeshDistance.create(scene.a, scene.b, { backend: 'cuda', min: scene.measure === 'min', max: scene.measure === 'max' });
const rounds = 10;
const stats = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return `mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(4)} p50 ${s[s.length >> 1].toFixed(4)} p90 ${s[Math.floor(0.9 * s.length)].toFixed(4)}`;
};
await context.query(scene.poses[scene.poses.length - 1]);
for (const way of ['async', 'sync', 'async']) {
  process.stderr.write(`probe: ${way}\n`);
  const wall = [], library = [];
  for (let r = 0; r < rounds; r++)
    for (const pose of scene.poses) {
      const t0 = performance.now();
      if (way === 'async') library.push((await context.query(pose)).queryMs);
      else {
        const raw = {};
        const status = context.native.distanceQuery(context.context, pose, raw, null);
        if (status !== 0) throw new Error(`status ${status}`);
        library.push(raw.query_ms);
      }
      wall.push(performance.now() - t0);
    }
  console.log(`${name} ${triangles} ${way}: wall ms ${stats(wall)}; library query_ms ${stats(library)}`);
}
context.close();
