// The caller's word that no set holds copies (HausdorffOptions.distinct, which mask compares give): the search skips
// its check for copies, and the answers stay exact even when the word is wrong: the same witnesses, per-point
// distances and nearest indices as without it, on sets full of copies, on both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { hausdorff } from '../src/ops/hausdorff.js';
import { pointsSearch } from '../src/ops/points-search.js';
import { noGpu } from './points-search-cases.js';
import { rng, uniform, withDuplicates } from './random-points.js';

for (const backend of ['cpu', 'cuda'] as const) {
  test(`${backend}: distinct: true on sets with copies changes no answer`, { skip: backend === 'cuda' && noGpu }, async () => {
    const random = rng(29);
    const a = withDuplicates(uniform(1500, 3, random), 3, random), b = withDuplicates(uniform(1200, 3, random), 2, random);
    const answers = (r: Awaited<ReturnType<typeof pointsSearch>>) =>
      [r.hd, ...[r.ab, r.ba!].map((d) => [d.distance, d.fromIndex, d.toIndex]), r.perPoint, r.stats?.stats];
    const asked = { backend, threads: 3, distances: true, nearest: true, stats: { options: { percentile: 95 } } } as const;
    const checked = await pointsSearch(a, b, asked);
    const trusted = await pointsSearch(a, b, { ...asked, distinct: true });
    assert.deepEqual(answers(trusted), answers(checked), `${backend}: per-point search`);
    const witnesses = (r: Awaited<ReturnType<typeof hausdorff>>) => [r.hd, ...[r.ab, r.ba!].map((d) => [d.distance, d.fromIndex, d.toIndex])];
    for (const method of ['grid', 'eb'] as const) {
      assert.deepEqual(witnesses(await hausdorff(a, b, { backend, method, distinct: true })),
        witnesses(await hausdorff(a, b, { backend: 'cpu', method: 'brute', threads: 2 })), `${backend} ${method}: against the brute force`);
    }
  });
}
